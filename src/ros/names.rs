//! ROS 2 name rules: validation of node names and namespaces, expansion of relative and private
//! (`~`) topic names, and `--ros-args -r` remapping.
//!
//! Follows the ROS 2 design article "Topic and Service name mapping to DDS" and rcl's remap
//! semantics: names are compared fully qualified after expansion, the first matching rule wins,
//! and a rule may be restricted to one node with the `node:from:=to` form. Brace substitutions
//! (`{node}`) are not supported and are rejected as invalid characters.

use thiserror::Error;

/// A name that breaks the ROS 2 naming rules.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NameError {
    /// The name is empty.
    #[error("empty name")]
    Empty,
    /// A token contains a character other than `[A-Za-z0-9_]`.
    #[error("'{name}': character '{ch}' is not allowed (only letters, digits, '_' and '/')")]
    BadChar {
        /// The offending name.
        name: String,
        /// The offending character.
        ch: char,
    },
    /// A token is empty (`//`, trailing `/`) or starts with a digit, or `~` is misplaced.
    #[error("'{name}': {reason}")]
    BadToken {
        /// The offending name.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A namespace that is not absolute.
    #[error("namespace '{0}' must be absolute (start with '/')")]
    NamespaceNotAbsolute(String),
}

fn check_token(name: &str, token: &str) -> Result<(), NameError> {
    let Some(first) = token.chars().next() else {
        return Err(NameError::BadToken {
            name: name.into(),
            reason: "empty token (repeated or trailing '/')",
        });
    };
    if first.is_ascii_digit() {
        return Err(NameError::BadToken {
            name: name.into(),
            reason: "a token starts with a digit",
        });
    }
    if let Some(ch) = token
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Err(NameError::BadChar {
            name: name.into(),
            ch,
        });
    }
    if token.contains("__") {
        return Err(NameError::BadToken {
            name: name.into(),
            reason: "repeated '_' in a token",
        });
    }
    Ok(())
}

/// Checks a node base name: one token of `[A-Za-z_][A-Za-z0-9_]*`.
pub fn validate_node_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if let Some(ch) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Err(NameError::BadChar {
            name: name.into(),
            ch,
        });
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(NameError::BadToken {
            name: name.into(),
            reason: "starts with a digit",
        });
    }
    Ok(())
}

/// Checks an absolute namespace (`/` or `/a/b`, no trailing slash).
pub fn validate_namespace(ns: &str) -> Result<(), NameError> {
    if ns.is_empty() {
        return Err(NameError::Empty);
    }
    let Some(rest) = ns.strip_prefix('/') else {
        return Err(NameError::NamespaceNotAbsolute(ns.into()));
    };
    if rest.is_empty() {
        return Ok(());
    }
    rest.split('/').try_for_each(|tok| check_token(ns, tok))
}

/// Fully qualified node name: `/fesdj_mpc` or `/ns/fesdj_mpc`.
pub fn node_fqn(namespace: &str, node: &str) -> String {
    if namespace == "/" {
        format!("/{node}")
    } else {
        format!("{namespace}/{node}")
    }
}

/// Expands a topic or service name to its fully qualified form.
///
/// `~` and `~/x` are private names under the node (`/ns/node/x`), `/x` is absolute, anything
/// else is relative to the namespace. The result is validated.
pub fn resolve_name(name: &str, namespace: &str, node: &str) -> Result<String, NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    let full = if name == "~" {
        node_fqn(namespace, node)
    } else if let Some(rest) = name.strip_prefix("~/") {
        format!("{}/{rest}", node_fqn(namespace, node))
    } else if name.starts_with('~') {
        return Err(NameError::BadToken {
            name: name.into(),
            reason: "'~' must be followed by '/' (use '~/name')",
        });
    } else if name.starts_with('/') {
        name.to_string()
    } else if namespace == "/" {
        format!("/{name}")
    } else {
        format!("{namespace}/{name}")
    };
    let rest = &full[1..];
    if rest.is_empty() {
        return Err(NameError::BadToken {
            name: name.into(),
            reason: "a name cannot be just '/'",
        });
    }
    rest.split('/').try_for_each(|tok| check_token(name, tok))?;
    Ok(full)
}

/// One `-r [node:]from:=to` rule for a topic or service name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remap {
    /// Restricts the rule to the node of this (base) name, from the `node:from:=to` form.
    pub node: Option<String>,
    /// Name to match (expanded with the node's namespace before comparing).
    pub from: String,
    /// Replacement (expanded with the node's namespace).
    pub to: String,
}

/// Applies the first matching rule to an already fully qualified `resolved` name; returns the
/// remapped fully qualified name, or `resolved` itself when no rule matches.
pub fn apply_remaps(
    rules: &[Remap],
    resolved: &str,
    namespace: &str,
    node: &str,
) -> Result<String, NameError> {
    for rule in rules {
        if rule.node.as_deref().is_some_and(|n| n != node) {
            continue;
        }
        if resolve_name(&rule.from, namespace, node)? == resolved {
            return resolve_name(&rule.to, namespace, node);
        }
    }
    Ok(resolved.to_string())
}

/// Splits a fully qualified name into what `ros2_client::Name::new` takes: the namespace
/// (`/` or `/a/b`) and the last token.
pub fn split_fqn(fqn: &str) -> (&str, &str) {
    match fqn.rsplit_once('/') {
        Some(("", base)) => ("/", base),
        Some((ns, base)) => (ns, base),
        None => ("/", fqn),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_absolute_and_private_names() {
        assert_eq!(
            resolve_name("joint_states", "/", "fesdj_mpc").unwrap(),
            "/joint_states"
        );
        assert_eq!(
            resolve_name("joint_states", "/robot", "n").unwrap(),
            "/robot/joint_states"
        );
        assert_eq!(
            resolve_name("/diagnostics", "/robot", "n").unwrap(),
            "/diagnostics"
        );
        assert_eq!(
            resolve_name("~/effort_command", "/robot", "fesdj_mpc").unwrap(),
            "/robot/fesdj_mpc/effort_command"
        );
        assert_eq!(resolve_name("~", "/", "fesdj_mpc").unwrap(), "/fesdj_mpc");
    }

    #[test]
    fn rejects_bad_names() {
        assert!(matches!(
            resolve_name("~x", "/", "n"),
            Err(NameError::BadToken { .. })
        ));
        assert!(matches!(
            resolve_name("a//b", "/", "n"),
            Err(NameError::BadToken { .. })
        ));
        assert!(matches!(
            resolve_name("a/", "/", "n"),
            Err(NameError::BadToken { .. })
        ));
        assert!(matches!(
            resolve_name("9lives", "/", "n"),
            Err(NameError::BadToken { .. })
        ));
        assert!(matches!(
            resolve_name("a-b", "/", "n"),
            Err(NameError::BadChar { ch: '-', .. })
        ));
        assert!(matches!(
            resolve_name("{node}/x", "/", "n"),
            Err(NameError::BadChar { .. })
        ));
        assert_eq!(resolve_name("", "/", "n"), Err(NameError::Empty));
        assert!(validate_namespace("robot").is_err());
        assert!(validate_namespace("/robot/").is_err());
        assert!(validate_namespace("/robot/arm_1").is_ok());
        assert!(validate_node_name("fesdj-mpc").is_err());
        assert!(validate_node_name("2node").is_err());
    }

    #[test]
    fn first_matching_remap_wins_and_node_filter_applies() {
        let rules = vec![
            Remap {
                node: Some("other".into()),
                from: "joint_states".into(),
                to: "x".into(),
            },
            Remap {
                node: None,
                from: "~/effort_command".into(),
                to: "/effort_controller/commands".into(),
            },
            Remap {
                node: None,
                from: "joint_states".into(),
                to: "/robot/joint_states".into(),
            },
            Remap {
                node: None,
                from: "joint_states".into(),
                to: "/never".into(),
            },
        ];
        let r = |name: &str| {
            let full = resolve_name(name, "/", "fesdj_mpc").unwrap();
            apply_remaps(&rules, &full, "/", "fesdj_mpc").unwrap()
        };
        assert_eq!(r("joint_states"), "/robot/joint_states");
        assert_eq!(r("~/effort_command"), "/effort_controller/commands");
        assert_eq!(r("/diagnostics"), "/diagnostics");
    }

    #[test]
    fn splits_fully_qualified_names() {
        assert_eq!(split_fqn("/joint_states"), ("/", "joint_states"));
        assert_eq!(split_fqn("/ns/fesdj_mpc/plan"), ("/ns/fesdj_mpc", "plan"));
    }
}
