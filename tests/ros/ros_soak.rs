//! Soak: the node (a child process, analytic test double) under 200 Hz joint_states for two
//! minutes (`FESDJ_SOAK_SECS` to change) inside a private network namespace. Its resident memory
//! must stay flat — growth below 5 % between the end of a 20 s warm-up and the end — and it must
//! keep planning at its rate the whole time.

use crate::support as common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration as StdDuration, Instant};

use common::analytic::AnalyticPlanner;
use fesdj_mpc::ros::msg::*;
use fesdj_mpc::ros::params::NodeParams;
use fesdj_mpc::ros::{shutdown, NodeConfig, NodeRuntime};
use ros2_client::qos::{Durability, History, WhenFull};
use ros2_client::{
    Context, ContextOptions, Name, NodeName, NodeOptions, QosProfile, ServiceMapping,
};

const JOINTS: [&str; 3] = ["hip", "knee", "ankle"];
const WARM_UP_S: u64 = 20;

fn qos() -> QosProfile {
    QosProfile::publisher_default()
        .reliability_reliable(WhenFull::Wait(StdDuration::from_millis(20)))
        .durability(Durability::Volatile)
        .history(History::KeepLast { depth: 10 })
}

/// Helper run as the child process of `soak_resident_memory_stays_flat`.
#[test]
#[ignore = "helper: started as a child process by soak_resident_memory_stays_flat"]
fn soak_child_node() {
    let _turn = crate::support::serial::file(module_path!());
    if std::env::var_os("FESDJ_SOAK_CHILD").is_none() {
        return;
    }
    let params = NodeParams {
        joint_names: JOINTS.iter().map(|s| s.to_string()).collect(),
        rate_hz: 100.0,
        horizon_n: 20,
        horizon_t: 0.5,
        diagnostics_rate_hz: 1.0,
        ..NodeParams::default()
    };
    let stop = shutdown::flag_on_signals().expect("signal handlers");
    let mut node = NodeRuntime::new(NodeConfig::with_params(params)).expect("node starts");
    let mut planner = AnalyticPlanner::new(&JOINTS, &JOINTS, 20, 0.5);
    planner.record_states = false;
    println!("READY");
    node.run(&mut planner, &stop).expect("node loop");
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn soak_resident_memory_stays_flat() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(module_path!(), "soak_resident_memory_stays_flat") {
        return;
    }
    let total_s: u64 = std::env::var("FESDJ_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120)
        .max(WARM_UP_S + 10);
    let exe = std::env::current_exe().unwrap();
    let child_test = common::reexec::own_test(module_path!(), "soak_child_node", true);
    let mut child = Command::new(&exe)
        .args([
            child_test.as_str(),
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("FESDJ_SOAK_CHILD", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert!(
        lines.any(|l| l.map(|l| l.contains("READY")).unwrap_or(false)),
        "child did not start"
    );

    let ctx = Context::with_options(ContextOptions::new().domain_id(0)).unwrap();
    let mut node = ctx
        .new_node(
            NodeName::new("/", "soak_peer").unwrap(),
            NodeOptions::new()
                .enable_rosout(false)
                .start_parameter_services(false),
        )
        .unwrap();
    let js = node
        .create_topic(
            &Name::parse("/joint_states").unwrap(),
            JointState::type_name(),
            &qos(),
        )
        .unwrap();
    let tr = node
        .create_topic(
            &Name::parse("/fesdj_mpc/planned_trajectory").unwrap(),
            JointTrajectory::type_name(),
            &qos(),
        )
        .unwrap();
    let publisher = node.create_publisher::<JointState>(&js, None).unwrap();
    let trajectories = node
        .create_subscription::<JointTrajectory>(&tr, None)
        .unwrap();
    let enable = node
        .create_client::<SetBoolRequest, SetBoolResponse>(
            ServiceMapping::Enhanced,
            &Name::parse("/fesdj_mpc/enable").unwrap(),
            &SetBool::type_name(),
            qos(),
            qos(),
        )
        .unwrap();

    let start = Instant::now();
    let mut next = start;
    let mut sent = 0u64;
    let mut received = 0u64;
    let mut received_after_warm_up = 0u64;
    let mut enabled = false;
    let mut last_request = None;
    let mut baseline = None;
    let mut max_rss = 0;
    let mut next_sample = start + StdDuration::from_secs(WARM_UP_S);
    while start.elapsed() < StdDuration::from_secs(total_s) {
        let i = sent as f64;
        let msg = JointState {
            header: Header {
                stamp: Time::now(),
                frame_id: String::new(),
            },
            name: JOINTS.iter().map(|s| s.to_string()).collect(),
            position: vec![(0.01 * i).sin(), (0.01 * i).cos(), 0.0],
            velocity: vec![0.1, 0.2, 0.3],
            effort: vec![],
        };
        publisher.publish(msg).unwrap();
        sent += 1;
        if !enabled
            && last_request.is_none_or(|t: Instant| t.elapsed() > StdDuration::from_millis(200))
        {
            enable.send_request(SetBoolRequest { data: true }).unwrap();
            last_request = Some(Instant::now());
        }
        if let Ok(Some((_, r))) = enable.receive_response() {
            enabled |= r.success;
        }
        while let Ok(Some(_)) = trajectories.take() {
            received += 1;
            if baseline.is_some() {
                received_after_warm_up += 1;
            }
        }
        if Instant::now() >= next_sample {
            let rss = rss_kib(child.id());
            max_rss = max_rss.max(rss);
            if baseline.is_none() {
                baseline = Some(rss);
            }
            println!(
                "t = {:5.1} s: RSS {rss} KiB, {sent} joint_states sent, {received} plans received",
                start.elapsed().as_secs_f64()
            );
            next_sample += StdDuration::from_secs(10);
        }
        next += StdDuration::from_millis(5);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let end_rss = rss_kib(child.id());
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    let baseline = baseline.unwrap();
    let growth = (end_rss as f64 - baseline as f64) / baseline as f64;
    let elapsed = start.elapsed().as_secs_f64();
    let plan_rate = received_after_warm_up as f64 / (elapsed - WARM_UP_S as f64);
    println!(
        "soak {elapsed:.0} s: input {:.1} Hz, plans {plan_rate:.1} Hz after warm-up; RSS {baseline} KiB after warm-up, {end_rss} KiB at the end (growth {:.2} %, max {max_rss} KiB)",
        sent as f64 / elapsed,
        growth * 100.0
    );
    assert_eq!(status.code(), Some(0));
    assert!(enabled);
    assert!(sent as f64 / elapsed > 190.0, "input rate");
    assert!(
        plan_rate > 90.0 && plan_rate < 110.0,
        "plan rate {plan_rate}"
    );
    assert!(
        growth < 0.05,
        "resident memory grew {:.2} %",
        growth * 100.0
    );
}
