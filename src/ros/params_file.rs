//! ROS 2 parameter YAML: `--params-file` files and the YAML-typed values of `-p name:=value`.
//!
//! A params file maps node-name keys to `ros__parameters` tables:
//!
//! ```yaml
//! /**:                      # every node
//!   ros__parameters:
//!     rate_hz: 50.0
//! fesdj_mpc:                # the node /fesdj_mpc (a key without leading '/' is rooted)
//!   ros__parameters:
//!     horizon:              # nested tables flatten to dotted names: horizon.N
//!       N: 20
//! /robot/fesdj_mpc:         # the node fesdj_mpc in namespace /robot
//!   ros__parameters: {sim: true}
//! ```
//!
//! Node keys are matched like rclcpp does: the key is made absolute, `/*` matches exactly one
//! name token and `/**` any number of tokens (including none). Keys may also nest
//! (`/robot: {fesdj_mpc: {ros__parameters: …}}`). All matching entries apply in file order, so
//! a later entry overrides an earlier one. Values are typed by YAML: plain `true`/`yes`/`on` are
//! booleans, plain numbers integers or doubles, quoted text strings, homogeneous sequences
//! arrays (integers mixed with doubles become a double array).

use std::fmt;
use std::path::{Path, PathBuf};

use ros2_client::ParameterValue;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use thiserror::Error;

/// An untyped YAML node as serde-saphyr infers it (quoted scalars stay strings).
#[derive(Debug, Clone, PartialEq)]
pub enum YamlValue {
    /// `~`, `null` or an empty value.
    Null,
    /// A boolean (YAML 1.1 spellings accepted, as rcl does).
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number (including `.inf`/`.nan`).
    Float(f64),
    /// A string.
    String(String),
    /// A sequence.
    Seq(Vec<YamlValue>),
    /// A mapping, in document order.
    Map(Vec<(String, YamlValue)>),
}

impl<'de> Deserialize<'de> for YamlValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = YamlValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a YAML value")
            }
            fn visit_unit<E>(self) -> Result<YamlValue, E> {
                Ok(YamlValue::Null)
            }
            fn visit_none<E>(self) -> Result<YamlValue, E> {
                Ok(YamlValue::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<YamlValue, D::Error> {
                YamlValue::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<YamlValue, E> {
                Ok(YamlValue::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<YamlValue, E> {
                Ok(YamlValue::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<YamlValue, E> {
                i64::try_from(v)
                    .map(YamlValue::Int)
                    .map_err(|_| E::custom(format!("integer {v} does not fit in int64")))
            }
            fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<YamlValue, E> {
                i64::try_from(v)
                    .map(YamlValue::Int)
                    .map_err(|_| E::custom(format!("integer {v} does not fit in int64")))
            }
            fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<YamlValue, E> {
                i64::try_from(v)
                    .map(YamlValue::Int)
                    .map_err(|_| E::custom(format!("integer {v} does not fit in int64")))
            }
            fn visit_f64<E>(self, v: f64) -> Result<YamlValue, E> {
                Ok(YamlValue::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<YamlValue, E> {
                Ok(YamlValue::String(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<YamlValue, E> {
                Ok(YamlValue::String(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<YamlValue, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(YamlValue::Seq(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<YamlValue, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<YamlKey, YamlValue>()? {
                    out.push((k.0, v));
                }
                Ok(YamlValue::Map(out))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// A mapping key, always as its text: ROS reads keys as strings, so `N:` is the name "N" (not
/// the YAML 1.1 boolean) and `1:` is "1".
struct YamlKey(String);

impl<'de> Deserialize<'de> for YamlKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(YamlKey)
    }
}

/// Converts a YAML node to a ROS parameter value; `Err` says why it cannot be one.
pub fn yaml_to_parameter(value: &YamlValue) -> Result<ParameterValue, String> {
    Ok(match value {
        YamlValue::Null => return Err("no value (null)".into()),
        YamlValue::Bool(b) => ParameterValue::Boolean(*b),
        YamlValue::Int(i) => ParameterValue::Integer(*i),
        YamlValue::Float(f) => ParameterValue::Double(*f),
        YamlValue::String(s) => ParameterValue::String(s.clone()),
        YamlValue::Map(_) => return Err("a mapping is not a parameter value".into()),
        YamlValue::Seq(items) => {
            if items.is_empty() {
                // The element type of `[]` is unknown; `params` coerces an empty array to the
                // declared array type.
                return Ok(ParameterValue::StringArray(Vec::new()));
            }
            if items.iter().all(|v| matches!(v, YamlValue::Bool(_))) {
                ParameterValue::BooleanArray(
                    items
                        .iter()
                        .filter_map(|v| {
                            if let YamlValue::Bool(b) = v {
                                Some(*b)
                            } else {
                                None
                            }
                        })
                        .collect(),
                )
            } else if items.iter().all(|v| matches!(v, YamlValue::Int(_))) {
                ParameterValue::IntegerArray(
                    items
                        .iter()
                        .filter_map(|v| {
                            if let YamlValue::Int(i) = v {
                                Some(*i)
                            } else {
                                None
                            }
                        })
                        .collect(),
                )
            } else if items
                .iter()
                .all(|v| matches!(v, YamlValue::Int(_) | YamlValue::Float(_)))
            {
                ParameterValue::DoubleArray(
                    items
                        .iter()
                        .filter_map(|v| match v {
                            YamlValue::Int(i) => Some(*i as f64),
                            YamlValue::Float(f) => Some(*f),
                            _ => None,
                        })
                        .collect(),
                )
            } else if items.iter().all(|v| matches!(v, YamlValue::String(_))) {
                ParameterValue::StringArray(
                    items
                        .iter()
                        .filter_map(|v| {
                            if let YamlValue::String(s) = v {
                                Some(s.clone())
                            } else {
                                None
                            }
                        })
                        .collect(),
                )
            } else {
                return Err(
                    "array elements must all be booleans, all numbers or all strings".into(),
                );
            }
        }
    })
}

/// Types the text of `-p name:=value` the way ROS does (as a YAML scalar or flow sequence).
pub fn parse_parameter_value(text: &str) -> Result<ParameterValue, String> {
    if text.trim().is_empty() {
        return Err("empty value".into());
    }
    let value: YamlValue = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    yaml_to_parameter(&value)
}

/// A problem with a params file; every variant names the file.
#[derive(Debug, Error)]
pub enum ParamsFileError {
    /// The file could not be read.
    #[error("params file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid YAML (the message has line and column).
    #[error("params file {path}: {message}")]
    Yaml {
        /// The file.
        path: PathBuf,
        /// serde-saphyr's message.
        message: String,
    },
    /// Valid YAML that is not a ROS parameter file.
    #[error("params file {path}, key '{key}': {reason}")]
    Structure {
        /// The file.
        path: PathBuf,
        /// Path of keys to the problem, `/`-joined for node keys and `.` for parameters.
        key: String,
        /// What is wrong.
        reason: String,
    },
}

/// One `node-key: {ros__parameters: …}` entry of a params file.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeEntry {
    /// The node key, made absolute (`/**`, `/fesdj_mpc`, `/robot/*`).
    pub pattern: String,
    /// Flattened parameters in file order.
    pub parameters: Vec<(String, ParameterValue)>,
}

/// A parsed params file.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamsFile {
    /// Where it came from (for messages).
    pub path: PathBuf,
    /// Entries in file order.
    pub entries: Vec<NodeEntry>,
}

impl ParamsFile {
    /// Reads and parses `path`.
    pub fn load(path: &Path) -> Result<ParamsFile, ParamsFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| ParamsFileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses params-file text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<ParamsFile, ParamsFileError> {
        let root: YamlValue = serde_saphyr::from_str(text).map_err(|e| ParamsFileError::Yaml {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let mut file = ParamsFile {
            path: path.to_path_buf(),
            entries: Vec::new(),
        };
        match root {
            YamlValue::Null => {}
            YamlValue::Map(items) => file.collect_nodes("", &items)?,
            _ => return Err(file.structure("", "the top level must be a mapping of node names")),
        }
        Ok(file)
    }

    fn structure(&self, key: &str, reason: &str) -> ParamsFileError {
        ParamsFileError::Structure {
            path: self.path.clone(),
            key: key.into(),
            reason: reason.into(),
        }
    }

    fn collect_nodes(
        &mut self,
        prefix: &str,
        items: &[(String, YamlValue)],
    ) -> Result<(), ParamsFileError> {
        for (key, value) in items {
            let segment = key.trim_matches('/');
            let node_key = if prefix.is_empty() {
                format!("/{segment}")
            } else {
                format!("{prefix}/{segment}")
            };
            if key == "ros__parameters" {
                let pattern = if prefix.is_empty() {
                    "/".to_string()
                } else {
                    prefix.to_string()
                };
                let YamlValue::Map(params) = value else {
                    if matches!(value, YamlValue::Null) {
                        continue;
                    }
                    return Err(self.structure(
                        &format!("{pattern}/ros__parameters"),
                        "must be a mapping of parameter names",
                    ));
                };
                let mut parameters = Vec::new();
                self.flatten(
                    &format!("{pattern}/ros__parameters"),
                    "",
                    params,
                    &mut parameters,
                )?;
                self.entries.push(NodeEntry {
                    pattern,
                    parameters,
                });
                continue;
            }
            match value {
                YamlValue::Map(inner) => self.collect_nodes(&node_key, inner)?,
                YamlValue::Null => {}
                _ => {
                    return Err(self.structure(
                        &node_key,
                        "expected a node name mapping to 'ros__parameters' (node: {ros__parameters: {...}})",
                    ))
                }
            }
        }
        Ok(())
    }

    fn flatten(
        &self,
        node_key: &str,
        prefix: &str,
        items: &[(String, YamlValue)],
        out: &mut Vec<(String, ParameterValue)>,
    ) -> Result<(), ParamsFileError> {
        for (key, value) in items {
            let name = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            if let YamlValue::Map(inner) = value {
                self.flatten(node_key, &name, inner, out)?;
                continue;
            }
            let param = yaml_to_parameter(value)
                .map_err(|reason| self.structure(&format!("{node_key}: {name}"), &reason))?;
            out.push((name, param));
        }
        Ok(())
    }

    /// Parameters for the node with fully qualified name `node_fqn`, from every matching entry
    /// in file order (later values of the same name override earlier ones).
    pub fn parameters_for(&self, node_fqn: &str) -> Vec<(String, ParameterValue)> {
        let mut out: Vec<(String, ParameterValue)> = Vec::new();
        for entry in self
            .entries
            .iter()
            .filter(|e| node_pattern_matches(&e.pattern, node_fqn))
        {
            for (name, value) in &entry.parameters {
                match out.iter_mut().find(|(n, _)| n == name) {
                    Some(slot) => slot.1 = value.clone(),
                    None => out.push((name.clone(), value.clone())),
                }
            }
        }
        out
    }
}

/// Whether a node key of a params file matches `node_fqn` (both absolute): tokens compare
/// literally, `*` matches one token, `**` any number of tokens.
pub fn node_pattern_matches(pattern: &str, node_fqn: &str) -> bool {
    let pat: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let name: Vec<&str> = node_fqn.split('/').filter(|s| !s.is_empty()).collect();
    fn go(p: &[&str], n: &[&str]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some((&"**", rest)) => (0..=n.len()).any(|k| go(rest, &n[k..])),
            Some((&tok, rest)) => match n.split_first() {
                Some((&first, n_rest)) => (tok == "*" || tok == first) && go(rest, n_rest),
                None => false,
            },
        }
    }
    go(&pat, &name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_yaml_typed() {
        use ParameterValue as P;
        assert_eq!(parse_parameter_value("true").unwrap(), P::Boolean(true));
        assert_eq!(parse_parameter_value("yes").unwrap(), P::Boolean(true));
        assert_eq!(parse_parameter_value("42").unwrap(), P::Integer(42));
        assert_eq!(parse_parameter_value("-1.5e3").unwrap(), P::Double(-1500.0));
        assert_eq!(
            parse_parameter_value("hello").unwrap(),
            P::String("hello".into())
        );
        assert_eq!(
            parse_parameter_value("'42'").unwrap(),
            P::String("42".into())
        );
        assert_eq!(
            parse_parameter_value("/opt/robot.urdf").unwrap(),
            P::String("/opt/robot.urdf".into())
        );
        assert_eq!(
            parse_parameter_value("[1, 2]").unwrap(),
            P::IntegerArray(vec![1, 2])
        );
        assert_eq!(
            parse_parameter_value("[1, 2.5]").unwrap(),
            P::DoubleArray(vec![1.0, 2.5])
        );
        assert_eq!(
            parse_parameter_value("[hip, 'knee']").unwrap(),
            P::StringArray(vec!["hip".into(), "knee".into()])
        );
        assert_eq!(
            parse_parameter_value("[true, false]").unwrap(),
            P::BooleanArray(vec![true, false])
        );
        assert_eq!(parse_parameter_value("[]").unwrap(), P::StringArray(vec![]));
        assert!(parse_parameter_value("[1, a]")
            .unwrap_err()
            .contains("array elements"));
        assert!(parse_parameter_value("{a: 1}")
            .unwrap_err()
            .contains("mapping"));
        assert!(parse_parameter_value("").is_err());
        assert!(parse_parameter_value("~").is_err());
    }

    #[test]
    fn node_patterns_match_like_rclcpp() {
        assert!(node_pattern_matches("/**", "/fesdj_mpc"));
        assert!(node_pattern_matches("/**", "/a/b/fesdj_mpc"));
        assert!(node_pattern_matches("/fesdj_mpc", "/fesdj_mpc"));
        assert!(!node_pattern_matches("/fesdj_mpc", "/robot/fesdj_mpc"));
        assert!(node_pattern_matches("/robot/fesdj_mpc", "/robot/fesdj_mpc"));
        assert!(node_pattern_matches("/robot/*", "/robot/fesdj_mpc"));
        assert!(!node_pattern_matches("/robot/*", "/robot/arm/fesdj_mpc"));
        assert!(node_pattern_matches("/**/fesdj_mpc", "/fesdj_mpc"));
        assert!(node_pattern_matches("/**/fesdj_mpc", "/a/b/fesdj_mpc"));
        assert!(!node_pattern_matches("/**/other", "/a/fesdj_mpc"));
        assert!(node_pattern_matches("/*", "/fesdj_mpc"));
    }

    #[test]
    fn parses_ros_style_file_with_nesting_and_precedence() {
        let text = r#"
/**:
  ros__parameters:
    rate_hz: 20.0
    sim: false
    horizon:
      N: 10
      T: 0.5
fesdj_mpc:
  ros__parameters:
    rate_hz: 50.0
/robot:
  fesdj_mpc:
    ros__parameters:
      sim: true
      joint_names: [hip, knee]
other_node:
  ros__parameters:
    rate_hz: 1.0
"#;
        let f = ParamsFile::parse(text, Path::new("p.yaml")).unwrap();
        assert_eq!(f.entries.len(), 4);
        assert_eq!(f.entries[2].pattern, "/robot/fesdj_mpc");
        let root = f.parameters_for("/fesdj_mpc");
        let get = |ps: &[(String, ParameterValue)], n: &str| {
            ps.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone())
        };
        assert_eq!(get(&root, "rate_hz"), Some(ParameterValue::Double(50.0)));
        assert_eq!(get(&root, "horizon.N"), Some(ParameterValue::Integer(10)));
        assert_eq!(get(&root, "sim"), Some(ParameterValue::Boolean(false)));
        let ns = f.parameters_for("/robot/fesdj_mpc");
        assert_eq!(get(&ns, "rate_hz"), Some(ParameterValue::Double(20.0)));
        assert_eq!(get(&ns, "sim"), Some(ParameterValue::Boolean(true)));
        assert_eq!(
            get(&ns, "joint_names"),
            Some(ParameterValue::StringArray(vec![
                "hip".into(),
                "knee".into()
            ]))
        );
        assert_eq!(get(&ns, "horizon.T"), Some(ParameterValue::Double(0.5)));
    }

    #[test]
    fn errors_name_file_and_key() {
        let e = ParamsFile::parse(
            "/**:\n  ros__parameters:\n    w: [1, x]\n",
            Path::new("bad.yaml"),
        )
        .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("bad.yaml") && msg.contains("/**/ros__parameters: w"),
            "{msg}"
        );
        let e = ParamsFile::parse("fesdj_mpc: 3\n", Path::new("bad2.yaml")).unwrap_err();
        assert!(e.to_string().contains("'/fesdj_mpc'"), "{e}");
        let e = ParamsFile::parse("a: [1\n", Path::new("bad3.yaml")).unwrap_err();
        assert!(
            matches!(e, ParamsFileError::Yaml { .. }) && e.to_string().contains("bad3.yaml"),
            "{e}"
        );
        let e = ParamsFile::load(Path::new("/nonexistent/params.yaml")).unwrap_err();
        assert!(
            matches!(e, ParamsFileError::Read { .. })
                && e.to_string().contains("/nonexistent/params.yaml")
        );
        let e = ParamsFile::parse("- 1\n", Path::new("list.yaml")).unwrap_err();
        assert!(matches!(e, ParamsFileError::Structure { .. }), "{e}");
    }
}
