//! `--ros-args` command-line parsing (ros2-client does not do it) and `ROS_DOMAIN_ID`.
//!
//! Supported, as `ros2 run`/`ros2 launch` pass them:
//!
//! | argument | meaning |
//! |---|---|
//! | `-p name:=value`, `--param name:=value` | parameter override, value typed as YAML |
//! | `--params-file FILE` | ROS-style parameter YAML (see [`super::params_file`]) |
//! | `-r __node:=name`, `-r __name:=name` | node name |
//! | `-r __ns:=/namespace` | node namespace (absolute) |
//! | `-r [node:]from:=to`, `--remap …` | topic/service remap |
//! | `--log-level [logger:=]LEVEL` | kept in [`RosArgs::log_levels`] |
//! | `--enclave X`, `-e X`, `--log-config-file X` | accepted and ignored (no security / rcl logging here) |
//! | `--enable-…`/`--disable-…` log switches | accepted and ignored |
//!
//! ROS arguments start after `--ros-args` and run to a lone `--` or the end; several
//! `--ros-args` sections may appear. Everything else is returned as [`RosArgs::user_args`].
//! Precedence follows rclcpp: params files in command-line order, then `-p` overrides in order,
//! the later winning.

use std::path::PathBuf;

use ros2_client::ParameterValue;
use thiserror::Error;

use super::names::{self, NameError, Remap};
use super::params_file::{parse_parameter_value, ParamsFile, ParamsFileError};

/// What is wrong with the command line or the environment; each variant names the argument.
#[derive(Debug, Error)]
pub enum ArgsError {
    /// A flag that needs a value came last.
    #[error("--ros-args: '{flag}' needs a value")]
    MissingValue {
        /// The flag.
        flag: String,
    },
    /// A flag inside `--ros-args` that ROS 2 does not define.
    #[error("--ros-args: unknown argument '{arg}'")]
    UnknownFlag {
        /// The argument.
        arg: String,
    },
    /// `-p` without `name:=value`.
    #[error("--ros-args -p '{arg}': expected name:=value")]
    BadParamAssignment {
        /// The argument after `-p`.
        arg: String,
    },
    /// A parameter name that is empty or has characters ROS does not allow.
    #[error("--ros-args -p '{arg}': bad parameter name '{name}'")]
    BadParamName {
        /// The argument after `-p`.
        arg: String,
        /// The name part.
        name: String,
    },
    /// A value that is not a valid YAML-typed parameter value.
    #[error("--ros-args -p {name}:={value}: {reason}")]
    BadParamValue {
        /// Parameter name.
        name: String,
        /// The value text.
        value: String,
        /// Why it was rejected.
        reason: String,
    },
    /// `-r` without `from:=to`, or with a bad name.
    #[error("--ros-args -r '{arg}': {reason}")]
    BadRemap {
        /// The argument after `-r`.
        arg: String,
        /// What is wrong.
        reason: String,
    },
    /// A params file could not be used.
    #[error(transparent)]
    ParamsFile(#[from] ParamsFileError),
    /// `ROS_DOMAIN_ID` is not an integer in 0..=232.
    #[error("ROS_DOMAIN_ID='{value}': {reason}")]
    BadDomainId {
        /// The variable's value.
        value: String,
        /// What is wrong.
        reason: String,
    },
}

/// The highest domain id for which the default RTPS port mapping stays in range (ROS 2 docs).
pub const MAX_DOMAIN_ID: u16 = 232;

/// Where a parameter override came from (for error messages).
#[derive(Debug, Clone, PartialEq)]
pub enum OverrideSource {
    /// `-p name:=value` on the command line.
    CommandLine,
    /// A `--params-file`.
    File(PathBuf),
}

impl std::fmt::Display for OverrideSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OverrideSource::CommandLine => write!(f, "--ros-args -p"),
            OverrideSource::File(p) => write!(f, "params file {}", p.display()),
        }
    }
}

/// One parameter value from the command line or a params file.
#[derive(Debug, Clone, PartialEq)]
pub struct ParameterOverride {
    /// Dotted parameter name.
    pub name: String,
    /// The value as typed by YAML.
    pub value: ParameterValue,
    /// Its origin.
    pub source: OverrideSource,
}

/// Parsed `--ros-args`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RosArgs {
    /// `-p` overrides in command-line order.
    pub params: Vec<(String, ParameterValue)>,
    /// `--params-file` paths in command-line order.
    pub params_files: Vec<PathBuf>,
    /// `__node:=` (the first one wins, as in rcl).
    pub node_name: Option<String>,
    /// `__ns:=` (the first one wins).
    pub namespace: Option<String>,
    /// Topic and service remaps in command-line order.
    pub remaps: Vec<Remap>,
    /// `--log-level` values (`LEVEL` or `logger:=LEVEL`).
    pub log_levels: Vec<String>,
    /// Arguments outside `--ros-args` sections.
    pub user_args: Vec<String>,
}

fn valid_param_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

impl RosArgs {
    /// Parses a command line without the program name.
    pub fn parse<I, S>(args: I) -> Result<RosArgs, ArgsError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut out = RosArgs::default();
        let mut it = args.into_iter().map(Into::into);
        let mut in_ros = false;
        while let Some(arg) = it.next() {
            if arg == "--ros-args" {
                in_ros = true;
                continue;
            }
            if !in_ros {
                out.user_args.push(arg);
                continue;
            }
            let mut value_of = |flag: &str| {
                it.next().ok_or_else(|| ArgsError::MissingValue {
                    flag: flag.to_string(),
                })
            };
            match arg.as_str() {
                "--" => in_ros = false,
                "-p" | "--param" => {
                    let v = value_of(&arg)?;
                    out.push_param(&v)?;
                }
                "-r" | "--remap" => {
                    let v = value_of(&arg)?;
                    out.push_remap(&v)?;
                }
                "--params-file" => {
                    let v = value_of(&arg)?;
                    out.params_files.push(PathBuf::from(v));
                }
                "--log-level" => {
                    let v = value_of(&arg)?;
                    out.log_levels.push(v);
                }
                "-e" | "--enclave" | "--log-config-file" | "--log-file-name" => {
                    value_of(&arg)?;
                }
                "--enable-rosout-logs"
                | "--disable-rosout-logs"
                | "--enable-stdout-logs"
                | "--disable-stdout-logs"
                | "--enable-external-lib-logs"
                | "--disable-external-lib-logs" => {}
                _ => return Err(ArgsError::UnknownFlag { arg }),
            }
        }
        Ok(out)
    }

    /// Parses the process arguments (`std::env::args`, program name skipped).
    pub fn from_env() -> Result<RosArgs, ArgsError> {
        Self::parse(std::env::args().skip(1))
    }

    fn push_param(&mut self, arg: &str) -> Result<(), ArgsError> {
        let Some((name, value)) = arg.split_once(":=") else {
            return Err(ArgsError::BadParamAssignment { arg: arg.into() });
        };
        if !valid_param_name(name) {
            return Err(ArgsError::BadParamName {
                arg: arg.into(),
                name: name.into(),
            });
        }
        let parsed = parse_parameter_value(value).map_err(|reason| ArgsError::BadParamValue {
            name: name.into(),
            value: value.into(),
            reason,
        })?;
        self.params.push((name.to_string(), parsed));
        Ok(())
    }

    fn push_remap(&mut self, arg: &str) -> Result<(), ArgsError> {
        let bad = |reason: String| ArgsError::BadRemap {
            arg: arg.into(),
            reason,
        };
        let Some((lhs, to)) = arg.split_once(":=") else {
            return Err(bad("expected from:=to".into()));
        };
        let (node, from) = match lhs.split_once(':') {
            Some((node, from)) => {
                names::validate_node_name(node).map_err(|e| bad(e.to_string()))?;
                (Some(node.to_string()), from)
            }
            None => (None, lhs),
        };
        let name_err = |e: NameError| bad(e.to_string());
        match from {
            "__node" | "__name" => {
                names::validate_node_name(to).map_err(name_err)?;
                if node.is_none() && self.node_name.is_none() {
                    self.node_name = Some(to.to_string());
                }
            }
            "__ns" => {
                names::validate_namespace(to).map_err(name_err)?;
                if node.is_none() && self.namespace.is_none() {
                    self.namespace = Some(to.to_string());
                }
            }
            _ => {
                // Check both sides once with a placeholder node; the real node is used later.
                names::resolve_name(from, "/", "n").map_err(name_err)?;
                names::resolve_name(to, "/", "n").map_err(name_err)?;
                self.remaps.push(Remap {
                    node,
                    from: from.into(),
                    to: to.into(),
                });
            }
        }
        Ok(())
    }

    /// Node name after `__node:=`, else `default`.
    pub fn node_name_or<'a>(&'a self, default: &'a str) -> &'a str {
        self.node_name.as_deref().unwrap_or(default)
    }

    /// Namespace after `__ns:=`, else `/`.
    pub fn namespace_or_root(&self) -> &str {
        self.namespace.as_deref().unwrap_or("/")
    }

    /// All parameter overrides that apply to the node `node_fqn`: every params file (in order,
    /// entries matched as rclcpp does), then the `-p` overrides. Later entries override earlier
    /// ones of the same name; the result has one entry per name, in first-seen order.
    pub fn parameter_overrides(&self, node_fqn: &str) -> Result<Vec<ParameterOverride>, ArgsError> {
        let mut out: Vec<ParameterOverride> = Vec::new();
        let mut put = |name: &str, value: &ParameterValue, source: OverrideSource| {
            let new = ParameterOverride {
                name: name.into(),
                value: value.clone(),
                source,
            };
            match out.iter_mut().find(|o| o.name == name) {
                Some(slot) => *slot = new,
                None => out.push(new),
            }
        };
        for path in &self.params_files {
            let file = ParamsFile::load(path)?;
            for (name, value) in file.parameters_for(node_fqn) {
                put(&name, &value, OverrideSource::File(path.clone()));
            }
        }
        for (name, value) in &self.params {
            put(name, value, OverrideSource::CommandLine);
        }
        Ok(out)
    }
}

/// Parses a `ROS_DOMAIN_ID` value: unset or empty means 0, as in ROS 2.
pub fn parse_domain_id(value: Option<&str>) -> Result<u16, ArgsError> {
    let Some(raw) = value else { return Ok(0) };
    let text = raw.trim();
    if text.is_empty() {
        return Ok(0);
    }
    let bad = |reason: &str| ArgsError::BadDomainId {
        value: raw.into(),
        reason: reason.into(),
    };
    let id: u64 = text
        .parse()
        .map_err(|_| bad("not a non-negative integer"))?;
    if id > u64::from(MAX_DOMAIN_ID) {
        return Err(bad("must be at most 232"));
    }
    Ok(id as u16)
}

/// `ROS_DOMAIN_ID` from the environment (0 when unset).
pub fn domain_id_from_env() -> Result<u16, ArgsError> {
    match std::env::var("ROS_DOMAIN_ID") {
        Ok(v) => parse_domain_id(Some(&v)),
        Err(std::env::VarError::NotPresent) => Ok(0),
        Err(std::env::VarError::NotUnicode(v)) => Err(ArgsError::BadDomainId {
            value: v.to_string_lossy().into_owned(),
            reason: "not valid Unicode".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn parse(v: &[&str]) -> Result<RosArgs, ArgsError> {
        RosArgs::parse(v.iter().copied())
    }

    #[test]
    fn parses_params_with_yaml_types() {
        let a = parse(&[
            "--ros-args",
            "-p",
            "rate_hz:=100",
            "-p",
            "sim:=true",
            "--param",
            "joint_names:=[hip, knee]",
            "-p",
            "urdf_path:=/opt/hopper.urdf",
            "-p",
            "horizon.T:=0.5",
        ])
        .unwrap();
        assert_eq!(
            a.params,
            vec![
                ("rate_hz".to_string(), ParameterValue::Integer(100)),
                ("sim".to_string(), ParameterValue::Boolean(true)),
                (
                    "joint_names".to_string(),
                    ParameterValue::StringArray(vec!["hip".into(), "knee".into()])
                ),
                (
                    "urdf_path".to_string(),
                    ParameterValue::String("/opt/hopper.urdf".into())
                ),
                ("horizon.T".to_string(), ParameterValue::Double(0.5)),
            ]
        );
    }

    #[test]
    fn parses_node_namespace_and_topic_remaps() {
        let a = parse(&[
            "--ros-args",
            "-r",
            "__node:=mpc",
            "-r",
            "__ns:=/robot",
            "-r",
            "__node:=ignored",
            "-r",
            "~/effort_command:=/effort_controller/commands",
            "--remap",
            "mpc:joint_states:=js",
        ])
        .unwrap();
        assert_eq!(a.node_name.as_deref(), Some("mpc"));
        assert_eq!(a.namespace.as_deref(), Some("/robot"));
        assert_eq!(a.remaps.len(), 2);
        assert_eq!(
            a.remaps[1],
            Remap {
                node: Some("mpc".into()),
                from: "joint_states".into(),
                to: "js".into()
            }
        );
        assert_eq!(a.node_name_or("fesdj_mpc"), "mpc");
    }

    #[test]
    fn separates_user_args_and_multiple_sections() {
        let a = parse(&[
            "run",
            "--ros-args",
            "-p",
            "a:=1",
            "--",
            "--steps",
            "3",
            "--ros-args",
            "-p",
            "b:=2",
        ])
        .unwrap();
        assert_eq!(a.user_args, vec!["run", "--steps", "3"]);
        assert_eq!(a.params.len(), 2);
        let a = parse(&[
            "--ros-args",
            "--log-level",
            "debug",
            "--enclave",
            "/x",
            "--disable-stdout-logs",
        ])
        .unwrap();
        assert_eq!(a.log_levels, vec!["debug"]);
    }

    #[test]
    fn errors_name_the_argument() {
        let e = parse(&["--ros-args", "-p", "rate_hz=5"]).unwrap_err();
        assert!(
            matches!(e, ArgsError::BadParamAssignment { .. })
                && e.to_string().contains("rate_hz=5")
        );
        let e = parse(&["--ros-args", "-p", "rate-hz:=5"]).unwrap_err();
        assert!(matches!(e, ArgsError::BadParamName { .. }) && e.to_string().contains("rate-hz"));
        let e = parse(&["--ros-args", "-p", "w:=[1, x]"]).unwrap_err();
        assert!(
            matches!(e, ArgsError::BadParamValue { .. }) && e.to_string().contains("w:=[1, x]")
        );
        let e = parse(&["--ros-args", "-p"]).unwrap_err();
        assert!(matches!(e, ArgsError::MissingValue { .. }) && e.to_string().contains("-p"));
        let e = parse(&["--ros-args", "--params-file"]).unwrap_err();
        assert!(matches!(e, ArgsError::MissingValue { .. }));
        let e = parse(&["--ros-args", "--bogus"]).unwrap_err();
        assert!(matches!(e, ArgsError::UnknownFlag { .. }) && e.to_string().contains("--bogus"));
        let e = parse(&["--ros-args", "-r", "__ns:=robot"]).unwrap_err();
        assert!(matches!(e, ArgsError::BadRemap { .. }) && e.to_string().contains("__ns:=robot"));
        let e = parse(&["--ros-args", "-r", "__node:=bad-name"]).unwrap_err();
        assert!(matches!(e, ArgsError::BadRemap { .. }));
        let e = parse(&["--ros-args", "-r", "joint_states"]).unwrap_err();
        assert!(e.to_string().contains("from:=to"));
        let e = parse(&["--ros-args", "-r", "a:=b//c"]).unwrap_err();
        assert!(matches!(e, ArgsError::BadRemap { .. }));
    }

    #[test]
    fn params_files_then_command_line_with_node_matching() {
        let dir = std::env::temp_dir().join(format!("fesdj_args_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f1 = dir.join("a.yaml");
        let f2 = dir.join("b.yaml");
        std::fs::File::create(&f1)
            .unwrap()
            .write_all(b"/**:\n  ros__parameters:\n    rate_hz: 20.0\n    sim: false\n/robot/mpc:\n  ros__parameters:\n    sim: true\n")
            .unwrap();
        std::fs::File::create(&f2)
            .unwrap()
            .write_all(b"mpc:\n  ros__parameters:\n    rate_hz: 30.0\n")
            .unwrap();
        let a = RosArgs::parse([
            "--ros-args",
            "--params-file",
            f1.to_str().unwrap(),
            "-p",
            "rate_hz:=99.0",
            "--params-file",
            f2.to_str().unwrap(),
        ])
        .unwrap();
        let at_ns = a.parameter_overrides("/robot/mpc").unwrap();
        let get = |o: &[ParameterOverride], n: &str| o.iter().find(|p| p.name == n).cloned();
        assert_eq!(
            get(&at_ns, "rate_hz").unwrap().value,
            ParameterValue::Double(99.0)
        );
        assert_eq!(
            get(&at_ns, "rate_hz").unwrap().source,
            OverrideSource::CommandLine
        );
        assert_eq!(
            get(&at_ns, "sim").unwrap().value,
            ParameterValue::Boolean(true)
        );
        let at_root = a.parameter_overrides("/mpc").unwrap();
        assert_eq!(
            get(&at_root, "sim").unwrap().value,
            ParameterValue::Boolean(false)
        );
        assert_eq!(
            get(&at_root, "sim").unwrap().source,
            OverrideSource::File(f1.clone())
        );
        let no_cli = RosArgs::parse([
            "--ros-args",
            "--params-file",
            f1.to_str().unwrap(),
            "--params-file",
            f2.to_str().unwrap(),
        ])
        .unwrap();
        assert_eq!(
            get(&no_cli.parameter_overrides("/mpc").unwrap(), "rate_hz")
                .unwrap()
                .value,
            ParameterValue::Double(30.0)
        );
        let missing = RosArgs::parse(["--ros-args", "--params-file", "/nonexistent.yaml"]).unwrap();
        let e = missing.parameter_overrides("/mpc").unwrap_err();
        assert!(e.to_string().contains("/nonexistent.yaml"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn domain_id_rules() {
        assert_eq!(parse_domain_id(None).unwrap(), 0);
        assert_eq!(parse_domain_id(Some("")).unwrap(), 0);
        assert_eq!(parse_domain_id(Some(" 42 ")).unwrap(), 42);
        assert_eq!(parse_domain_id(Some("232")).unwrap(), 232);
        let e = parse_domain_id(Some("233")).unwrap_err();
        assert!(e.to_string().contains("ROS_DOMAIN_ID='233'"));
        assert!(parse_domain_id(Some("-1")).is_err());
        assert!(parse_domain_id(Some("abc")).is_err());
    }
}
