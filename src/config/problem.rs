//! [`Problem`]: a loaded, overridden and checked configuration that builds [`ClsModel`]s,
//! OCPs and simulation steps on demand.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::ad::{Function, Sx};
use crate::fesdj::{ClsModel, FesdjError};

use super::de::from_tree;
use super::error::{invalid, shape, ConfigError};
use super::expressions::ExpressionModel;
use super::robot::RobotModel;
use super::schema::Config;
use super::set::{apply, parse_override, Override};
use super::symbols::Symbols;
use super::tree::{parse_yaml, Tree};

/// Where the model comes from.
#[derive(Debug, Clone)]
pub enum ModelSource {
    /// `model.expressions`.
    Expressions(Rc<ExpressionModel>),
    /// `model.robot`.
    Robot(Rc<RobotModel>),
}

/// A checked problem configuration.
#[derive(Debug)]
pub struct Problem {
    /// The configuration after the overrides.
    pub config: Config,
    /// The file it was read from (`<string>` for text).
    pub file: PathBuf,
    /// The model.
    pub model: ModelSource,
    /// Non-fatal findings (e.g. an initial state that penetrates a contact).
    pub warnings: Vec<String>,
    /// Paths of every schema field the file (or a `--set`) gave explicitly.
    set_paths: Vec<String>,
    /// The YAML tree after the overrides (the plant of `mpc.plant` is built from it).
    tree: Tree,
    /// Directory that resolves relative paths.
    base_dir: PathBuf,
}

/// Paths under `fesdj` that other sections set.
const OWNED_ELSEWHERE: [(&str, &str); 3] = [
    ("fesdj.n_intervals", "horizon.N"),
    ("fesdj.t_final", "horizon.T"),
    ("fesdj.T", "horizon.T"),
];

impl Problem {
    /// Read `path`, apply the `--set` overrides (`KEY=VALUE`), deserialise and check.
    pub fn load(path: &Path, overrides: &[String]) -> Result<Problem, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            file: path.display().to_string(),
            source,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Problem::from_yaml(&text, path, dir, overrides)
    }

    /// The same from YAML text; `base_dir` resolves relative URDF paths.
    pub fn from_yaml(
        text: &str,
        file: &Path,
        base_dir: &Path,
        overrides: &[String],
    ) -> Result<Problem, ConfigError> {
        let parsed = overrides
            .iter()
            .map(|o| parse_override(o))
            .collect::<Result<Vec<_>, _>>()?;
        Problem::from_yaml_with(text, file, base_dir, &parsed)
    }

    /// [`Problem::load`] with parsed (or typed, [`Override::new`]) overrides, applied in order.
    pub fn load_with(path: &Path, overrides: &[Override]) -> Result<Problem, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            file: path.display().to_string(),
            source,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Problem::from_yaml_with(&text, path, dir, overrides)
    }

    /// [`Problem::from_yaml`] with parsed (or typed) overrides, applied in order.
    pub fn from_yaml_with(
        text: &str,
        file: &Path,
        base_dir: &Path,
        overrides: &[Override],
    ) -> Result<Problem, ConfigError> {
        let mut tree = parse_yaml(text).map_err(|why| ConfigError::Yaml {
            file: file.display().to_string(),
            why,
        })?;
        let mut created = Vec::new();
        for o in overrides {
            let (path, existed) = apply(&mut tree, o)?;
            if !existed {
                created.push((o.key.clone(), path));
            }
        }
        Problem::from_tree(tree, file, base_dir, &created)
    }

    /// Deserialise and check an overridden tree; `created` lists `(key, path)` of the
    /// overrides that created a key (they must name schema fields).
    fn from_tree(
        tree: Tree,
        file: &Path,
        base_dir: &Path,
        created: &[(String, String)],
    ) -> Result<Problem, ConfigError> {
        let (config, visited) = match from_tree::<Config>(&tree) {
            Ok(x) => x,
            Err(e) => {
                let hit = created.iter().find(|(_, p)| {
                    p == &e.path
                        || (!e.path.is_empty()
                            && (p.starts_with(&format!("{}.", e.path))
                                || p.starts_with(&format!("{}[", e.path))))
                });
                return Err(match hit {
                    Some((key, _)) => ConfigError::Override {
                        key: key.clone(),
                        why: format!("unknown key ({e})"),
                    },
                    None => ConfigError::Schema(e),
                });
            }
        };
        for (key, path) in created {
            // `mpc.plant` and `mpc.backup` are free-form trees, checked when the plant or the
            // backup is built; an `ipm`
            // section of `solver` is read as a map over the homotopy's IPM defaults
            // (`HomotopySettings::ipm`), which rejects unknown keys itself, so its keys are not
            // recorded as visited.
            if !visited.contains(path)
                && !path.starts_with("mpc.plant.")
                && !path.starts_with("mpc.backup.")
                && !path.starts_with("solver.ipm.")
            {
                return Err(ConfigError::Override {
                    key: key.clone(),
                    why: format!("unknown key: `{path}` is not a field of the configuration"),
                });
            }
        }
        for (path, owner) in OWNED_ELSEWHERE {
            if visited.iter().any(|p| p == path) {
                return Err(invalid(
                    path,
                    format!("is set by `{owner}` (OCP) or by `simulation` (one interval per step); remove it"),
                ));
            }
        }
        let model = model_source(&config, base_dir)?;
        let mut problem = Problem {
            config,
            file: file.to_path_buf(),
            model,
            warnings: Vec::new(),
            set_paths: visited,
            tree,
            base_dir: base_dir.to_path_buf(),
        };
        problem.check()?;
        Ok(problem)
    }

    /// The plant of a closed-loop run: `None` without `mpc.plant`, else a second build of this
    /// file with the `mpc.plant` overrides applied leaf by leaf (only under `model`, `fesdj`
    /// and `solver`). Errors name `mpc.plant.<path>`.
    pub fn plant_problem(&self) -> Result<Option<Problem>, ConfigError> {
        self.variant("plant", &["model", "fesdj", "solver"])
    }

    /// The backup controller's problem ([`crate::mpc::Controller::set_backup`]): `None`
    /// without `mpc.backup`, else a second build of this file with the `mpc.backup`
    /// overrides applied leaf by leaf (only under `fesdj`, `solver` and `mpc`: the same
    /// model, another transcription, solver or controller settings). Errors name
    /// `mpc.backup.<path>`.
    pub fn backup_problem(&self) -> Result<Option<Problem>, ConfigError> {
        self.variant("backup", &["fesdj", "solver", "mpc"])
    }

    /// A second build of this file with the overrides of `mpc.<name>` (sections `allowed`).
    /// The plant's build has no `mpc` section; the others keep it without `mpc.<name>`.
    fn variant(&self, name: &str, allowed: &[&str]) -> Result<Option<Problem>, ConfigError> {
        let at = format!("mpc.{name}");
        let Some(spec) = self.tree.get("mpc").and_then(|m| m.get(name)) else {
            return Ok(None);
        };
        let spec = match spec {
            Tree::Null => return Ok(None),
            Tree::Map(m) => m.clone(),
            other => {
                return Err(invalid(
                    &at,
                    format!("must be a mapping of overrides, got {}", other.kind()),
                ))
            }
        };
        let mut leaves = Vec::new();
        for (key, value) in &spec {
            if !allowed.contains(&key.as_str()) {
                let list = allowed
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(invalid(
                    format!("{at}.{key}"),
                    format!("unknown key: the {name} overrides {list}"),
                ));
            }
            flatten(vec![key.clone()], value, &mut leaves);
        }
        let mut tree = self.tree.clone();
        if let Tree::Map(m) = &mut tree {
            if name == "plant" {
                m.retain(|(k, _)| k != "mpc");
            } else if let Some((_, Tree::Map(mpc))) = m.iter_mut().find(|(k, _)| k == "mpc") {
                mpc.retain(|(k, _)| k != name && k != "plant");
            }
        }
        let mut created = Vec::new();
        for (segments, value) in leaves {
            let key = format!("{at}.{}", segments.join("."));
            let o = Override {
                key: key.clone(),
                segments,
                value,
            };
            let (path, existed) = apply(&mut tree, &o).map_err(|e| variant_error(&key, e))?;
            if !existed {
                created.push((key, path));
            }
        }
        let file = self.file.clone();
        Problem::from_tree(tree, &file, &self.base_dir.clone(), &created)
            .map(Some)
            .map_err(|e| match e {
                ConfigError::Override { key, why } => variant_error(
                    &key,
                    ConfigError::Override {
                        key: key.clone(),
                        why,
                    },
                ),
                ConfigError::Schema(d) => invalid(format!("{at}.{}", d.path), d.msg),
                other => invalid(&at, other.to_string()),
            })
    }

    /// True if the field at `path` (e.g. `solver.stop_measure`) was given explicitly, by the
    /// file or a `--set`, rather than defaulted.
    pub fn was_set(&self, path: &str) -> bool {
        self.set_paths.iter().any(|p| p == path)
    }

    /// The symbols (coordinate, velocity, control and parameter names).
    pub fn symbols(&self) -> &Symbols {
        match &self.model {
            ModelSource::Expressions(m) => &m.symbols,
            ModelSource::Robot(r) => &r.symbols,
        }
    }

    /// Contact names (for outputs and plots).
    pub fn contact_names(&self) -> Vec<String> {
        match &self.model {
            ModelSource::Expressions(m) => m.contact_names.clone(),
            ModelSource::Robot(r) => r.contacts.iter().map(|c| c.name.clone()).collect(),
        }
    }

    /// A fresh [`ClsModel`] (they are not `Clone`; building one is cheap).
    pub fn cls_model(&self) -> Result<ClsModel, ConfigError> {
        match &self.model {
            ModelSource::Expressions(m) => m.cls_model(),
            ModelSource::Robot(r) => r.cls_model(),
        }
    }

    /// The initial state `x_0 = (q_0, v_0)`.
    pub fn x0(&self) -> Vec<f64> {
        let n_q = self.symbols().n_q();
        let init = &self.config.initial;
        let mut x = init.q.clone();
        match &init.v {
            Some(v) => x.extend_from_slice(v),
            None => x.extend(std::iter::repeat_n(0.0, n_q)),
        }
        x
    }

    /// Check the initial state's size, `M(q_0)` (symmetric positive definite) and the gaps at
    /// `q_0`, and build the OCP and simulation parts once so that their errors show at load.
    fn check(&mut self) -> Result<(), ConfigError> {
        let n_q = self.symbols().n_q();
        let init = &self.config.initial;
        if init.q.len() != n_q {
            return Err(shape(
                "initial.q",
                format!("{n_q} entries (one per coordinate)"),
                init.q.len().to_string(),
            ));
        }
        if let Some(v) = &init.v {
            if v.len() != n_q {
                return Err(shape(
                    "initial.v",
                    format!("{n_q} entries"),
                    v.len().to_string(),
                ));
            }
        }
        if let Some(i) = self.x0().iter().position(|x| !x.is_finite()) {
            let (part, k) = if i < n_q { ("q", i) } else { ("v", i - n_q) };
            return Err(invalid(format!("initial.{part}[{k}]"), "must be finite"));
        }
        let model = self.cls_model()?;
        let q0 = self.config.initial.q.clone();
        let (m, gaps) = eval_mass_and_gaps(&model, &q0).map_err(|source| ConfigError::Fesdj {
            field: "model".into(),
            source,
        })?;
        let field = match &self.model {
            ModelSource::Expressions(_) => "model.expressions.M",
            ModelSource::Robot(_) => "model.robot",
        };
        if !is_spd(&m, n_q) {
            return Err(invalid(
                field,
                "the mass matrix is not symmetric positive definite at initial.q",
            ));
        }
        for (name, g) in self.contact_names().iter().zip(gaps) {
            if g < -1e-9 {
                self.warnings.push(format!(
                    "contact `{name}`: gap f_c(q_0) = {g:.6} < 0 (the initial state penetrates)"
                ));
            }
        }
        if self.config.ocp.is_some() || self.config.horizon.is_some() {
            self.ocp()?;
        }
        if self.config.simulation.is_some() {
            self.simulation()?;
        }
        Ok(())
    }
}

/// Leaves of an override tree: mappings recurse, anything else replaces the value.
fn flatten(prefix: Vec<String>, t: &Tree, out: &mut Vec<(Vec<String>, Tree)>) {
    match t {
        Tree::Map(m) if !m.is_empty() => {
            for (k, v) in m {
                let mut p = prefix.clone();
                p.push(k.clone());
                flatten(p, v, out);
            }
        }
        other => out.push((prefix, other.clone())),
    }
}

fn variant_error(key: &str, e: ConfigError) -> ConfigError {
    let why = match e {
        ConfigError::Override { why, .. } => why,
        other => other.to_string(),
    };
    invalid(key, why)
}

fn model_source(config: &Config, base_dir: &Path) -> Result<ModelSource, ConfigError> {
    let m = &config.model;
    match (&m.expressions, &m.robot) {
        (Some(e), None) => Ok(ModelSource::Expressions(Rc::new(ExpressionModel::new(
            e, m,
        )?))),
        (None, Some(r)) => Ok(ModelSource::Robot(Rc::new(RobotModel::new(
            r, m, base_dir,
        )?))),
        _ => Err(invalid(
            "model",
            "give exactly one of `expressions` and `robot`",
        )),
    }
}

/// `M(q)` (column-major) and `f_c(q)` of a model at a numeric `q`.
pub fn eval_mass_and_gaps(model: &ClsModel, q: &[f64]) -> Result<(Vec<f64>, Vec<f64>), FesdjError> {
    let qs = Sx::sym_vec("q", model.n_q());
    let m = model.mass_matrix(&qs)?;
    let g = model.gaps(&qs)?;
    let f = Function::new("m_and_gaps", &[&qs], &[&m, &g])?;
    let mut mo = vec![0.0; m.len()];
    let mut go = vec![0.0; g.len()];
    f.eval(&[q], &mut [&mut mo, &mut go], &mut f.workspace())?;
    Ok((mo, go))
}

/// Symmetric (to 1e-10 relative) and positive definite (Cholesky succeeds).
fn is_spd(m: &[f64], n: usize) -> bool {
    let scale = m.iter().fold(0.0_f64, |a, x| a.max(x.abs())).max(1e-300);
    for i in 0..n {
        for j in 0..i {
            if (m[i + n * j] - m[j + n * i]).abs() > 1e-10 * scale {
                return false;
            }
        }
    }
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = m[j + n * j];
        for k in 0..j {
            d -= l[j + n * k] * l[j + n * k];
        }
        if d.is_nan() || d <= 1e-14 * scale {
            return false;
        }
        let d = d.sqrt();
        l[j + n * j] = d;
        for i in j + 1..n {
            let mut s = m[i + n * j];
            for k in 0..j {
                s -= l[i + n * k] * l[j + n * k];
            }
            l[i + n * j] = s / d;
        }
    }
    true
}
