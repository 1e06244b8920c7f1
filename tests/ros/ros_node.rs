//! The node runtime against a Rust peer in a second DDS context (private network namespace):
//! plans follow valid input, bad input is rejected without stopping the node or producing a
//! plan, the services work, and SIGINT/SIGTERM end the node with exit code 0.

use crate::support as common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

use common::analytic::{AnalyticPlanner, KD, KP};
use fesdj_mpc::ros::diagnostics::Diagnostics;
use fesdj_mpc::ros::msg::*;
use fesdj_mpc::ros::params::NodeParams;
use fesdj_mpc::ros::validate::FaultKind;
use fesdj_mpc::ros::{shutdown, NodeConfig, NodeRuntime};
use ros2_client::qos::{Durability, History, WhenFull};
use ros2_client::{
    Client, Context, ContextOptions, Name, Node, NodeName, NodeOptions, Publisher, QosProfile,
    ServiceMapping, Subscription,
};

const JOINTS: [&str; 3] = ["hip", "knee", "ankle"];
const EFFORT_JOINTS: [&str; 2] = ["ankle", "hip"];
const N: usize = 10;
const HORIZON: f64 = 0.5;
const RATE_HZ: f64 = 50.0;

fn params() -> NodeParams {
    NodeParams {
        joint_names: JOINTS.iter().map(|s| s.to_string()).collect(),
        effort_joints: EFFORT_JOINTS.iter().map(|s| s.to_string()).collect(),
        rate_hz: RATE_HZ,
        horizon_n: N as i64,
        horizon_t: HORIZON,
        stale_state_timeout: 0.1,
        diagnostics_rate_hz: 10.0,
        warn_throttle_s: 0.2,
        ..NodeParams::default()
    }
}

fn qos() -> QosProfile {
    QosProfile::publisher_default()
        .reliability_reliable(WhenFull::Wait(StdDuration::from_millis(20)))
        .durability(Durability::Volatile)
        .history(History::KeepLast { depth: 10 })
}

/// Starts the node with the analytic test double on its own thread.
fn start_node(
    config: NodeConfig,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<(Diagnostics, AnalyticPlanner)> {
    std::thread::spawn(move || {
        let mut node = NodeRuntime::new(config).expect("node starts");
        let mut planner = AnalyticPlanner::new(&JOINTS, &EFFORT_JOINTS, N, HORIZON);
        node.run(&mut planner, &stop).expect("node loop");
        (node.diagnostics().clone(), planner)
    })
}

struct Peer {
    _node: Node,
    joint_states: Publisher<JointState>,
    trajectory: Subscription<JointTrajectory>,
    effort: Subscription<Float64MultiArray>,
    diagnostics: Subscription<DiagnosticArray>,
    plan: Client<TriggerRequest, TriggerResponse>,
    reset: Client<TriggerRequest, TriggerResponse>,
    enable: Client<SetBoolRequest, SetBoolResponse>,
    /// q of every good state sent, by stamp.
    good: HashMap<(i32, u32), Vec<f64>>,
    sent: usize,
    trajectories: Vec<(Instant, JointTrajectory)>,
    efforts: Vec<(Instant, Vec<f64>)>,
    diagnostic_reports: Vec<DiagnosticArray>,
}

fn client<S: RosService>(node: &mut Node, name: &str) -> Client<S::Request, S::Response> {
    node.create_client(
        ServiceMapping::Enhanced,
        &Name::parse(name).unwrap(),
        &S::type_name(),
        qos(),
        qos(),
    )
    .unwrap()
}

impl Peer {
    fn new(ctx: &Context) -> Peer {
        let mut node = ctx
            .new_node(
                NodeName::new("/", "peer").unwrap(),
                NodeOptions::new()
                    .enable_rosout(false)
                    .start_parameter_services(false),
            )
            .unwrap();
        let topic = |node: &mut Node, name: &str, ty| {
            node.create_topic(&Name::parse(name).unwrap(), ty, &qos())
                .unwrap()
        };
        let js = topic(&mut node, "/joint_states", JointState::type_name());
        let tr = topic(
            &mut node,
            "/fesdj_mpc/planned_trajectory",
            JointTrajectory::type_name(),
        );
        let ef = topic(
            &mut node,
            "/fesdj_mpc/effort_command",
            Float64MultiArray::type_name(),
        );
        let dg = topic(&mut node, "/diagnostics", DiagnosticArray::type_name());
        Peer {
            joint_states: node.create_publisher(&js, None).unwrap(),
            trajectory: node.create_subscription(&tr, None).unwrap(),
            effort: node.create_subscription(&ef, None).unwrap(),
            diagnostics: node.create_subscription(&dg, None).unwrap(),
            plan: client::<Trigger>(&mut node, "/fesdj_mpc/plan"),
            reset: client::<Trigger>(&mut node, "/fesdj_mpc/reset"),
            enable: client::<SetBool>(&mut node, "/fesdj_mpc/enable"),
            _node: node,
            good: HashMap::new(),
            sent: 0,
            trajectories: Vec::new(),
            efforts: Vec::new(),
            diagnostic_reports: Vec::new(),
        }
    }

    fn good_state(&mut self, offset_ms: i64) -> JointState {
        let i = self.sent as f64;
        let stamp = Time::from_nanos(Time::now().to_nanos() + offset_ms * 1_000_000);
        let q = vec![(0.01 * i).sin(), (0.01 * i).cos(), 0.001 * i];
        self.good.insert((stamp.sec, stamp.nanosec), q.clone());
        // Extra joint first and reversed order: matching is by name.
        JointState {
            header: Header {
                stamp,
                frame_id: String::new(),
            },
            name: vec!["extra".into(), "ankle".into(), "knee".into(), "hip".into()],
            position: vec![99.0, q[2], q[1], q[0]],
            velocity: vec![99.0, 0.3, 0.2, 0.1],
            effort: vec![],
        }
    }

    fn collect(&mut self) {
        let now = Instant::now();
        while let Ok(Some((t, _))) = self.trajectory.take() {
            self.trajectories.push((now, t));
        }
        while let Ok(Some((e, _))) = self.effort.take() {
            self.efforts.push((now, e.data));
        }
        while let Ok(Some((d, _))) = self.diagnostics.take() {
            self.diagnostic_reports.push(d);
        }
    }

    /// Publishes at 200 Hz for `duration`: `make(self)` gives each message.
    fn pump(&mut self, duration: StdDuration, mut make: impl FnMut(&mut Peer) -> JointState) {
        let start = Instant::now();
        let mut next = start;
        while start.elapsed() < duration {
            let msg = make(self);
            self.joint_states.publish(msg).unwrap();
            self.sent += 1;
            next += StdDuration::from_millis(5);
            while Instant::now() < next {
                self.collect();
                std::thread::sleep(StdDuration::from_micros(500));
            }
        }
        self.collect();
    }

    fn call<Req: ros2_client::Message + Clone + 'static, Resp: ros2_client::Message + 'static>(
        &mut self,
        which: fn(&Peer) -> &Client<Req, Resp>,
        req: Req,
    ) -> Resp {
        let start = Instant::now();
        // Every request of this call: the request is re-sent every 100 ms until a response
        // arrives (discovery), and the response to the first one may come after a re-send
        // (seen in CI: the node answered "enabled", then "already enabled" to the re-send).
        let mut ids = Vec::new();
        while start.elapsed() < StdDuration::from_secs(10) {
            ids.push(which(self).send_request(req.clone()).unwrap());
            let until = Instant::now() + StdDuration::from_millis(100);
            while Instant::now() < until {
                // Keep the state fresh while waiting.
                let msg = self.good_state(0);
                self.joint_states.publish(msg).unwrap();
                self.sent += 1;
                if let Some((rid, resp)) = which(self).receive_response().unwrap() {
                    if ids.contains(&rid) {
                        return resp;
                    }
                }
                self.collect();
                std::thread::sleep(StdDuration::from_millis(5));
            }
        }
        panic!("service call timed out");
    }
}

fn check_trajectory(peer: &Peer, t: &JointTrajectory) -> Result<(), String> {
    let q0 = peer
        .good
        .get(&(t.header.stamp.sec, t.header.stamp.nanosec))
        .ok_or("stamp of no good state")?;
    if t.joint_names != JOINTS {
        return Err(format!("joint names {:?}", t.joint_names));
    }
    if t.points.len() != N + 1 {
        return Err(format!("{} points", t.points.len()));
    }
    let v0 = [0.1, 0.2, 0.3];
    let h = HORIZON / N as f64;
    for (k, p) in t.points.iter().enumerate() {
        let tk = k as f64 * h;
        if p.time_from_start != Duration::from_secs_f64(tk) {
            return Err(format!("point {k} time {:?}", p.time_from_start));
        }
        for j in 0..3 {
            let q = q0[j] + v0[j] * tk;
            let u = -KP * q - KD * v0[j];
            if (p.positions[j] - q).abs() > 1e-12
                || (p.velocities[j] - v0[j]).abs() > 1e-15
                || (p.effort[j] - u).abs() > 1e-12
            {
                return Err(format!("point {k} joint {j}: {p:?}"));
            }
        }
    }
    Ok(())
}

#[test]
fn node_plans_from_valid_input_only_and_survives_bad_input() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(
        module_path!(),
        "node_plans_from_valid_input_only_and_survives_bad_input",
    ) {
        return;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let handle = start_node(NodeConfig::with_params(params()), Arc::clone(&stop));
    let ctx = Context::with_options(ContextOptions::new().domain_id(0)).unwrap();
    let mut peer = Peer::new(&ctx);

    // Discovery, then enable (start_enabled is false).
    let r = peer.call(|p| &p.enable, SetBoolRequest { data: true });
    assert_eq!(
        r,
        SetBoolResponse {
            success: true,
            message: "enabled".into()
        }
    );

    // Phase 1: 2 s of valid input at 200 Hz.
    let t0 = Instant::now();
    let before = peer.trajectories.len();
    peer.pump(StdDuration::from_secs(2), |p| p.good_state(-2));
    let elapsed = t0.elapsed().as_secs_f64();
    let good_phase: Vec<_> = peer.trajectories[before..]
        .iter()
        .filter(|(t, _)| *t > t0 + StdDuration::from_millis(200))
        .collect();
    let traj_rate = good_phase.len() as f64 / (elapsed - 0.2);
    let effort_rate = peer
        .efforts
        .iter()
        .filter(|(t, _)| *t > t0 + StdDuration::from_millis(200))
        .count() as f64
        / (elapsed - 0.2);
    println!("valid input: {} joint_states sent, trajectory rate {traj_rate:.1} Hz, effort rate {effort_rate:.1} Hz", peer.sent);
    assert!(
        traj_rate > 0.8 * RATE_HZ && traj_rate < 1.2 * RATE_HZ,
        "trajectory rate {traj_rate}"
    );
    assert!(
        effort_rate > 0.8 * RATE_HZ && effort_rate < 1.2 * RATE_HZ,
        "effort rate {effort_rate}"
    );
    for (_, t) in &peer.trajectories {
        check_trajectory(&peer, t).unwrap();
    }
    // Effort command: -KP q0 - KD v0 in effort-joint order (ankle, hip) for some good state.
    let v0 = [0.1, 0.2, 0.3];
    for (_, e) in &peer.efforts {
        assert_eq!(e.len(), 2);
        let matches = peer.good.values().any(|q| {
            (e[0] + KP * q[2] + KD * v0[2]).abs() < 1e-12
                && (e[1] + KP * q[0] + KD * v0[0]).abs() < 1e-12
        });
        assert!(matches, "effort {e:?} from no good state");
    }

    // Phase 2: each kind of bad input alone for 0.3 s, then valid input again for 0.4 s.
    type Corrupt = fn(&mut JointState, Time, Time);
    let cases: [(&str, Corrupt); 8] = [
        ("NaN position", |m, _, _| m.position[2] = f64::NAN),
        ("inf velocity", |m, _, _| m.velocity[1] = f64::INFINITY),
        ("wrong length", |m, _, _| {
            m.position.pop();
        }),
        ("unknown joint", |m, _, _| m.name[2] = "kneee".into()),
        ("stale stamp", |m, now, _| {
            m.header.stamp = Time::from_nanos(now.to_nanos() - 1_000_000_000)
        }),
        ("future stamp", |m, now, _| {
            m.header.stamp = Time::from_nanos(now.to_nanos() + 1_000_000_000)
        }),
        // Older than the last good stamp (and stale once 100 ms have passed).
        ("out-of-order stamp", |m, _, phase| {
            m.header.stamp = Time::from_nanos(phase.to_nanos() - 30_000_000)
        }),
        ("zero stamp", |m, _, _| m.header.stamp = Time::ZERO),
    ];
    for (label, corrupt) in cases {
        let bad_start = Instant::now();
        let phase = Time::now();
        let n_before = peer.trajectories.len();
        peer.pump(StdDuration::from_millis(300), |p| {
            let mut m = p.good_state(-2);
            // Not a good state after all: forget it.
            p.good.remove(&(m.header.stamp.sec, m.header.stamp.nanosec));
            let now = Time::now();
            corrupt(&mut m, now, phase);
            m
        });
        // Allow 40 ms for plans made from the last good state before the phase.
        let during = peer.trajectories[n_before..]
            .iter()
            .filter(|(t, _)| *t > bad_start + StdDuration::from_millis(40))
            .count();
        let n_good = peer.trajectories.len();
        peer.pump(StdDuration::from_millis(400), |p| p.good_state(-2));
        let after = peer.trajectories.len() - n_good;
        println!("{label}: {during} plans during bad input, {after} after valid input resumed");
        assert_eq!(
            during, 0,
            "{label}: plans published while only bad input arrived"
        );
        assert!(
            after >= 10,
            "{label}: node did not resume planning ({after} plans)"
        );
    }
    // Never a plan from bad data: every trajectory ever received matches a good state.
    for (_, t) in &peer.trajectories {
        check_trajectory(&peer, t).unwrap();
    }

    // Services: plan once, reset, disable.
    let r = peer.call(|p| &p.plan, TriggerRequest::default());
    assert!(
        r.success && r.message.starts_with("published 11 points, status solved"),
        "{r:?}"
    );
    let r = peer.call(|p| &p.reset, TriggerRequest::default());
    assert_eq!(
        r,
        TriggerResponse {
            success: true,
            message: "reset".into()
        }
    );
    let r = peer.call(|p| &p.enable, SetBoolRequest { data: false });
    assert_eq!(
        r,
        SetBoolResponse {
            success: true,
            message: "disabled".into()
        }
    );
    let off = Instant::now();
    peer.pump(StdDuration::from_millis(500), |p| p.good_state(-2));
    let efforts_after = peer
        .efforts
        .iter()
        .filter(|(t, _)| *t > off + StdDuration::from_millis(60))
        .count();
    assert_eq!(efforts_after, 0, "effort commands while disabled");
    let r = peer.call(|p| &p.plan, TriggerRequest::default());
    assert!(r.success, "plan once works while disabled: {r:?}");

    // Diagnostics arrived at ~10 Hz with the input and controller entries.
    assert!(
        peer.diagnostic_reports.len() >= 20,
        "{} diagnostics",
        peer.diagnostic_reports.len()
    );
    let warned = peer
        .diagnostic_reports
        .iter()
        .any(|d| d.status[0].level == DiagnosticStatus::WARN);
    assert!(warned, "an input WARN was reported");
    let last = peer.diagnostic_reports.last().unwrap();
    assert_eq!(last.status[0].name, "fesdj_mpc: input");
    assert_eq!(last.status[1].name, "fesdj_mpc: controller");
    let value = |d: &DiagnosticArray, s: usize, key: &str| {
        d.status[s]
            .values
            .iter()
            .find(|kv| kv.key == key)
            .map(|kv| kv.value.clone())
            .unwrap()
    };
    assert_eq!(value(last, 1, "homotopy_steps"), "3");
    assert_eq!(value(last, 1, "solve_time_ms"), "1.000");
    assert_eq!(value(last, 1, "enabled"), "false");

    stop.store(true, Ordering::Relaxed);
    let (diag, planner) = handle.join().expect("node thread");
    println!(
        "node: {} accepted, {} rejected {:?}, {} ticks, {} plans",
        diag.accepted,
        diag.rejected_total(),
        FaultKind::ALL
            .iter()
            .map(|k| (k.as_str(), diag.rejected[*k as usize]))
            .collect::<Vec<_>>(),
        diag.ticks,
        diag.plans_published
    );
    // 300 ms of each bad case at 200 Hz is 60 messages (NaN and inf: 120 together; the
    // out-of-order stamps turn stale after ~70 ms, so fewer count as out of order).
    for (kind, at_least) in [
        (FaultKind::NonFinite, 100),
        (FaultKind::WrongLength, 50),
        (FaultKind::MissingJoint, 50),
        (FaultKind::Stale, 100),
        (FaultKind::FutureStamp, 50),
        (FaultKind::OutOfOrder, 5),
    ] {
        assert!(
            diag.rejected[kind as usize] >= at_least,
            "{kind:?}: {}",
            diag.rejected[kind as usize]
        );
    }
    assert_eq!(planner.resets, 1);
    assert_eq!(planner.enabled, Some(false));
    // The provider only ever saw good states.
    for (sec, nanosec, q) in &planner.seen {
        assert_eq!(
            peer.good.get(&(*sec, *nanosec)),
            Some(q),
            "provider saw a state that was not sent as good"
        );
    }
}

/// Helper run as a child process by `signals_end_the_node_with_exit_code_0`.
#[test]
#[ignore = "helper: started as a child process by signals_end_the_node_with_exit_code_0"]
fn child_node_until_signal() {
    let _turn = crate::support::serial::file(module_path!());
    if std::env::var_os("FESDJ_NODE_CHILD").is_none() {
        return;
    }
    let stop = shutdown::flag_on_signals().expect("signal handlers");
    let mut node = NodeRuntime::new(NodeConfig::with_params(params())).expect("node starts");
    let mut planner = AnalyticPlanner::new(&JOINTS, &EFFORT_JOINTS, N, HORIZON);
    println!("READY");
    node.run(&mut planner, &stop).expect("node loop");
    drop(node);
    println!("STOPPED cleanly");
}

#[test]
fn signals_end_the_node_with_exit_code_0() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(module_path!(), "signals_end_the_node_with_exit_code_0") {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let child_test = common::reexec::own_test(module_path!(), "child_node_until_signal", true);
    for signal in ["INT", "TERM"] {
        let mut child = Command::new(&exe)
            .args([
                child_test.as_str(),
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("FESDJ_NODE_CHILD", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + StdDuration::from_secs(20);
        loop {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) if line.contains("READY") => break,
                Ok(_) => continue,
                Err(e) => panic!("child did not start: {e}"),
            }
        }
        std::thread::sleep(StdDuration::from_millis(500));
        let sent_at = Instant::now();
        let kill = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                sent_at.elapsed() < StdDuration::from_secs(10),
                "SIG{signal}: node did not stop"
            );
            std::thread::sleep(StdDuration::from_millis(10));
        };
        let lines: Vec<String> = rx.try_iter().collect();
        println!("SIG{signal}: exit {status} after {:?}", sent_at.elapsed());
        assert_eq!(status.code(), Some(0), "SIG{signal}");
        assert!(
            lines.iter().any(|l| l.contains("STOPPED cleanly")),
            "SIG{signal}: {lines:?}"
        );
    }
}

#[test]
fn floating_base_needs_valid_odometry_too() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(module_path!(), "floating_base_needs_valid_odometry_too") {
        return;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let config = NodeConfig::with_params(NodeParams {
        floating_base: true,
        start_enabled: true,
        ..params()
    });
    assert_eq!(config.topics().unwrap().odom.as_deref(), Some("/odom"));
    let handle = start_node(config, Arc::clone(&stop));
    let ctx = Context::with_options(ContextOptions::new().domain_id(0)).unwrap();
    let mut peer = Peer::new(&ctx);
    let mut odom_node = ctx
        .new_node(
            NodeName::new("/", "odom_peer").unwrap(),
            NodeOptions::new()
                .enable_rosout(false)
                .start_parameter_services(false),
        )
        .unwrap();
    let topic = odom_node
        .create_topic(
            &Name::parse("/odom").unwrap(),
            Odometry::type_name(),
            &qos(),
        )
        .unwrap();
    let odom_pub: Publisher<Odometry> = odom_node.create_publisher(&topic, None).unwrap();
    let odom = |w: f64| {
        let mut o = Odometry::default();
        o.header.stamp = Time::from_nanos(Time::now().to_nanos() - 2_000_000);
        o.pose.pose.position.z = 0.5;
        o.pose.pose.orientation.w = w;
        o
    };

    // Joint states alone: no plan (the base state is missing).
    peer.pump(StdDuration::from_secs(1), |p| p.good_state(-2));
    assert_eq!(peer.trajectories.len(), 0, "planned without odometry");
    // With odometry: plans at the rate.
    let n0 = peer.trajectories.len();
    peer.pump(StdDuration::from_secs(1), |p| {
        odom_pub.publish(odom(1.0)).unwrap();
        p.good_state(-2)
    });
    let with_odom = peer.trajectories.len() - n0;
    // Non-unit quaternion: rejected, planning stops.
    let n1 = peer.trajectories.len();
    let bad_start = Instant::now();
    peer.pump(StdDuration::from_millis(500), |p| {
        odom_pub.publish(odom(3.0)).unwrap();
        p.good_state(-2)
    });
    let during_bad = peer.trajectories[n1..]
        .iter()
        .filter(|(t, _)| *t > bad_start + StdDuration::from_millis(40))
        .count();
    println!(
        "floating base: {with_odom} plans in 1 s with odometry, {during_bad} with a bad quaternion"
    );
    assert!(
        with_odom as f64 > 0.7 * RATE_HZ,
        "{with_odom} plans with odometry"
    );
    assert_eq!(during_bad, 0);
    stop.store(true, Ordering::Relaxed);
    let (diag, _) = handle.join().expect("node thread");
    assert!(diag.rejected[FaultKind::BadQuaternion as usize] >= 50);
}
