//! `--set KEY=VALUE` overrides: `KEY` is a dotted path into the YAML tree (`horizon.T`,
//! `initial.q`, `initial.q[0]` or `initial.q.0`, `fesdj.n_s`), `VALUE` is YAML (`2.0`,
//! `[1.3]`, `gauss_legendre`, `{lb: [-1], ub: [1]}`).
//!
//! Overrides are applied to the tree before it is deserialised. A key that does not exist in
//! the file is created; after deserialisation it must have been read as a field of the typed
//! schema, otherwise it is an error naming the key (so typos never pass silently, also inside
//! free-form maps such as `parameters`).

use super::error::ConfigError;
use super::tree::{join_index, join_key, parse_yaml, Tree};

/// One parsed override.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    /// The key as written.
    pub key: String,
    /// The segments of the key (a numeric segment indexes a list).
    pub segments: Vec<String>,
    /// The value.
    pub value: Tree,
}

fn bad(key: &str, why: impl Into<String>) -> ConfigError {
    ConfigError::Override {
        key: key.to_string(),
        why: why.into(),
    }
}

/// Split `a.b[2].c` / `a.b.2.c` into segments.
fn split_key(key: &str) -> Result<Vec<String>, ConfigError> {
    let mut segs = Vec::new();
    for part in key.split('.') {
        let mut rest = part;
        let name_end = rest.find('[').unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() && name_end == rest.len() {
            return Err(bad(key, "empty path segment"));
        }
        if !name.is_empty() {
            segs.push(name.to_string());
        } else if segs.is_empty() {
            return Err(bad(key, "the key must start with a name"));
        }
        rest = &rest[name_end..];
        while let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').ok_or_else(|| bad(key, "missing ']'"))?;
            let idx = &r[..close];
            if idx.is_empty() || !idx.chars().all(|c| c.is_ascii_digit()) {
                return Err(bad(key, format!("invalid index `[{idx}]`")));
            }
            segs.push(idx.to_string());
            rest = &r[close + 1..];
        }
        if !rest.is_empty() {
            return Err(bad(key, format!("unexpected `{rest}`")));
        }
    }
    Ok(segs)
}

/// Parse `KEY=VALUE` (the value is YAML; an empty value is `null`).
pub fn parse_override(text: &str) -> Result<Override, ConfigError> {
    let Some((key, value)) = text.split_once('=') else {
        return Err(bad(text, "expected KEY=VALUE"));
    };
    let key = key.trim();
    if key.is_empty() {
        return Err(bad(text, "empty key"));
    }
    let segments = split_key(key)?;
    let value = parse_yaml(value).map_err(|e| bad(key, format!("value is not YAML: {e}")))?;
    Ok(Override {
        key: key.to_string(),
        segments,
        value,
    })
}

impl Override {
    /// A typed override: `key` as in `KEY=VALUE`, the value given as a tree (no YAML text to
    /// parse; what a program that already holds typed values, like the ROS node with its
    /// parameters, passes).
    pub fn new(key: &str, value: Tree) -> Result<Override, ConfigError> {
        Ok(Override {
            key: key.to_string(),
            segments: split_key(key)?,
            value,
        })
    }
}

/// Apply `o` to `tree`. Returns the normalised path (`a.b[2]`) and whether it existed before.
pub fn apply(tree: &mut Tree, o: &Override) -> Result<(String, bool), ConfigError> {
    let mut node = tree;
    let mut path = String::new();
    let mut existed = true;
    let last = o.segments.len() - 1;
    for (n, seg) in o.segments.iter().enumerate() {
        if matches!(node, Tree::Null) {
            *node = Tree::Map(Vec::new());
        }
        node = match node {
            Tree::Seq(items) => {
                let i: usize = seg.parse().map_err(|_| {
                    bad(
                        &o.key,
                        format!("`{path}` is a list: use an index, not `{seg}`"),
                    )
                })?;
                let len = items.len();
                path = join_index(&path, i);
                items.get_mut(i).ok_or_else(|| {
                    bad(
                        &o.key,
                        format!("index {i} out of range: `{path}` has {len} entries"),
                    )
                })?
            }
            Tree::Map(entries) => {
                path = join_key(&path, seg);
                match entries.iter().position(|(k, _)| k == seg) {
                    Some(i) => &mut entries[i].1,
                    None => {
                        existed = false;
                        let fresh = if n == last {
                            Tree::Null
                        } else {
                            Tree::Map(Vec::new())
                        };
                        entries.push((seg.clone(), fresh));
                        let end = entries.len() - 1;
                        &mut entries[end].1
                    }
                }
            }
            other => {
                return Err(bad(
                    &o.key,
                    format!("`{path}` is {}, it has no field `{seg}`", other.kind()),
                ))
            }
        };
    }
    *node = o.value.clone();
    Ok((path, existed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_into_segments() {
        assert_eq!(split_key("a.b[2].c").unwrap(), ["a", "b", "2", "c"]);
        assert_eq!(split_key("a.b.2").unwrap(), ["a", "b", "2"]);
        assert_eq!(split_key("a[0][1]").unwrap(), ["a", "0", "1"]);
        assert!(split_key("a..b").is_err());
        assert!(split_key("a[x]").is_err());
        assert!(split_key("a[1").is_err());
        assert!(split_key("[1]").is_err());
    }

    #[test]
    fn apply_replaces_creates_and_indexes() {
        let mut t = parse_yaml("a: {b: [1, 2]}\n").unwrap();
        let o = parse_override("a.b[1]=5").unwrap();
        assert_eq!(apply(&mut t, &o).unwrap(), ("a.b[1]".into(), true));
        let o = parse_override("a.c.d=x").unwrap();
        assert_eq!(apply(&mut t, &o).unwrap(), ("a.c.d".into(), false));
        assert_eq!(
            t.get("a").and_then(|a| a.get("c")).and_then(|c| c.get("d")),
            Some(&Tree::Str("x".into()))
        );
        assert!(apply(&mut t, &parse_override("a.b[7]=1").unwrap()).is_err());
        assert!(apply(&mut t, &parse_override("a.b.x=1").unwrap()).is_err());
        assert!(apply(&mut t, &parse_override("a.b[0].z=1").unwrap()).is_err());
        assert!(parse_override("novalue").is_err());
    }
}
