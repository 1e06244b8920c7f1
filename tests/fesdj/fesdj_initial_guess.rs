//! Per-contact initial guesses (§5.9; the three-box script's `λ_n = (0, 0, g, g, g)`, §6.3):
//! a scalar or a per-contact list in the options and in the problem file, checked through the
//! layout queries (the guess lands in the variables of the right contact), and errors naming
//! the field when a list does not fit the model.

use std::path::Path;

use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::layout::FrictionIndex;
use fesdj_mpc::fesdj::{transcribe, FesdjOptions, InitialGuess, PerContact, Transcription};

const G: f64 = 9.81;

fn three_boxes(overrides: &[&str]) -> Result<Problem, fesdj_mpc::config::ConfigError> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/three_boxes.yaml");
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    Problem::load(&path, &o)
}

fn transcribed(overrides: &[&str]) -> Transcription {
    let problem = three_boxes(overrides).expect("config loads");
    let setup = problem.ocp().expect("OCP section");
    transcribe(&setup.ocp, &setup.options).expect("transcription")
}

/// Every friction variable of one contact at one point.
fn friction_vars(f: &FrictionIndex) -> Vec<usize> {
    match f {
        FrictionIndex::None => Vec::new(),
        FrictionIndex::Polyhedral {
            lambda_d,
            gamma_d,
            beta_d,
            delta_d,
        } => {
            let mut v = lambda_d.clone();
            v.extend([*gamma_d, *beta_d]);
            v.extend(delta_d);
            v
        }
        FrictionIndex::Conic { .. } => panic!("three boxes use the polyhedral model"),
    }
}

#[test]
fn serde_scalar_or_list() {
    let g: InitialGuess =
        serde_json::from_str(r#"{"lambda_normal": [0, 0, 9.81, 9.81, 9.81], "y_gap": 2}"#).unwrap();
    assert_eq!(
        g.lambda_normal,
        PerContact::Each(vec![0.0, 0.0, G, G, G]),
        "list"
    );
    assert_eq!(g.y_gap, PerContact::All(2.0));
    assert_eq!(g.big_lambda_normal, 0.0);
    assert_eq!(g.lambda_normal.at(3), G);
    assert_eq!(g.y_gap.at(4), 2.0);
    // A scalar serialises as a number, a list as a list: the round trip is exact.
    let text = serde_json::to_string(&g).unwrap();
    assert!(
        text.contains(r#""lambda_normal":[0.0,0.0,9.81,9.81,9.81]"#),
        "{text}"
    );
    assert!(text.contains(r#""y_gap":2.0"#), "{text}");
    let back: InitialGuess = serde_json::from_str(&text).unwrap();
    assert_eq!(back, g);
    let e = serde_json::from_str::<InitialGuess>(r#"{"lambda_normal": "g"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("a number or a list of numbers"), "{e}");
}

#[test]
fn validation_names_the_entry() {
    let o = FesdjOptions {
        initial_guess: InitialGuess {
            lambda_normal: vec![0.0, -1.0].into(),
            ..InitialGuess::default()
        },
        ..FesdjOptions::default()
    };
    let e = o.validate().unwrap_err().to_string();
    assert!(e.contains("initial_guess.lambda_normal[1]"), "{e}");
    let o = FesdjOptions {
        initial_guess: InitialGuess {
            friction: f64::NAN.into(),
            ..InitialGuess::default()
        },
        ..FesdjOptions::default()
    };
    let e = o.validate().unwrap_err().to_string();
    assert!(e.contains("initial_guess.friction"), "{e}");
}

/// The scalar form of the shipped configs keeps working: every stage `λ_n` gets the number.
#[test]
fn scalar_guess_at_every_contact() {
    let mpcc = transcribed(&["fesdj.initial_guess.lambda_normal=2.5"]);
    let l = &mpcc.layout;
    let mut n = 0;
    for s in l.stages() {
        assert_eq!(s.lambda_n.len(), 5);
        for &i in &s.lambda_n {
            assert_eq!(mpcc.w0[i], 2.5);
            n += 1;
        }
    }
    // 15 intervals × 2 elements × 2 stages × 5 contacts.
    assert_eq!(n, 15 * 2 * 2 * 5);
}

/// §6.3: `λ_n = (0, 0, g, g, g)` at all stages, and per-contact lists for the impulse-level
/// and friction guesses, land in the variables of their contact and nowhere else.
#[test]
fn per_contact_lists_land_on_their_contacts() {
    let lam = [0.0, 0.0, G, G, G];
    let big_lam = [0.5, 0.25, 0.0, 0.0, 0.0];
    let fric = [0.1, 0.2, 0.3, 0.4, 0.5];
    let mpcc = transcribed(&[
        "fesdj.initial_guess.lambda_normal=[0, 0, 9.81, 9.81, 9.81]",
        "fesdj.initial_guess.big_lambda_normal=[0.5, 0.25, 0, 0, 0]",
        "fesdj.initial_guess.y_gap=[1, 2, 3, 4, 5]",
        "fesdj.initial_guess.friction=[0.1, 0.2, 0.3, 0.4, 0.5]",
    ]);
    let l = &mpcc.layout;
    let mut stages = 0;
    for s in l.stages() {
        stages += 1;
        for c in 0..5 {
            assert_eq!(mpcc.w0[s.lambda_n[c]], lam[c], "λ_n of contact {c}");
            assert_eq!(mpcc.w0[s.y_gap[c]], (c + 1) as f64, "y of contact {c}");
            let fv = friction_vars(&s.friction[c]);
            assert!(!fv.is_empty(), "contact {c} is frictional");
            for i in fv {
                assert_eq!(mpcc.w0[i], fric[c], "friction of contact {c}");
            }
        }
    }
    assert_eq!(stages, 15 * 2 * 2);
    // Impulse blocks at every element boundary (the config keeps them at the interval starts,
    // as N's script): 2 per interval.
    let mut blocks = 0;
    for imp in l.impulses() {
        blocks += 1;
        for c in 0..5 {
            assert_eq!(mpcc.w0[imp.lambda_n[c]], big_lam[c], "Λ_n of contact {c}");
            // Unnamed fields keep their defaults.
            assert_eq!(mpcc.w0[imp.y_gap[c]], 1.0);
            assert_eq!(mpcc.w0[imp.p_vn[c]], 1.0);
            for i in friction_vars(&imp.friction[c]) {
                assert_eq!(mpcc.w0[i], fric[c], "impulse friction of contact {c}");
            }
        }
    }
    assert_eq!(blocks, 15 * 2);
}

#[test]
fn wrong_length_names_the_field() {
    // In the problem file: checked when the OCP is built from it (at load).
    let e = three_boxes(&["fesdj.initial_guess.lambda_normal=[0, 9.81, 9.81]"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("initial_guess.lambda_normal"), "{e}");
    assert!(e.contains("5 contacts") && e.contains("3 entries"), "{e}");
    // Directly at the transcription.
    let problem = three_boxes(&[]).unwrap();
    let setup = problem.ocp().unwrap();
    let mut o = setup.options.clone();
    o.initial_guess.n_vn = vec![1.0; 6].into();
    let e = match transcribe(&setup.ocp, &o) {
        Ok(_) => panic!("a list of 6 entries for 5 contacts transcribed"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("initial_guess.n_vn"), "{e}");
    assert!(e.contains("5 contacts") && e.contains("6 entries"), "{e}");
}
