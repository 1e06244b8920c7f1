//! Rust-only DDS check: two ros2-client contexts in one process (inside a private network
//! namespace) exchange every message type of `fesdj_mpc::ros::msg` and call both services in
//! both service conventions.

use crate::support as common;

use std::time::{Duration as StdDuration, Instant};

use fesdj_mpc::ros::msg::*;
use ros2_client::qos::{Durability, History, WhenFull};
use ros2_client::{
    Context, ContextOptions, Name, Node, NodeName, NodeOptions, QosProfile, ServiceMapping,
};

fn qos() -> QosProfile {
    QosProfile::publisher_default()
        .reliability_reliable(WhenFull::Wait(StdDuration::from_millis(50)))
        .durability(Durability::Volatile)
        .history(History::KeepLast { depth: 10 })
}

fn node(ctx: &Context, name: &str) -> Node {
    ctx.new_node(
        NodeName::new("/", name).unwrap(),
        NodeOptions::new()
            .enable_rosout(false)
            .start_parameter_services(false),
    )
    .unwrap()
}

/// Publishes `value` from `a` every 20 ms until `b` receives it (at most 10 s); returns the
/// received copy and the number of publications needed.
fn exchange<M: RosMessage + PartialEq + std::fmt::Debug>(
    a: &mut Node,
    b: &mut Node,
    topic: &str,
    value: M,
) -> (M, usize) {
    let name = Name::new("/", topic).unwrap();
    let ta = a.create_topic(&name, M::type_name(), &qos()).unwrap();
    let tb = b.create_topic(&name, M::type_name(), &qos()).unwrap();
    let publisher = a.create_publisher::<M>(&ta, None).unwrap();
    let subscription = b.create_subscription::<M>(&tb, None).unwrap();
    let start = Instant::now();
    let mut sent = 0;
    while start.elapsed() < StdDuration::from_secs(10) {
        publisher.publish(value.clone()).unwrap();
        sent += 1;
        let until = Instant::now() + StdDuration::from_millis(20);
        while Instant::now() < until {
            if let Some((got, _)) = subscription.take().unwrap() {
                return (got, sent);
            }
            std::thread::sleep(StdDuration::from_millis(1));
        }
    }
    panic!("{topic}: nothing received in 10 s");
}

fn call<S: RosService>(
    a: &mut Node,
    b: &mut Node,
    mapping: ServiceMapping,
    service: &str,
    request: S::Request,
    respond: impl Fn(&S::Request) -> S::Response,
) -> S::Response
where
    S::Request: std::fmt::Debug + PartialEq,
{
    let name = Name::new("/", service).unwrap();
    let server = b
        .create_server::<S::Request, S::Response>(mapping, &name, &S::type_name(), qos(), qos())
        .unwrap();
    let client = a
        .create_client::<S::Request, S::Response>(mapping, &name, &S::type_name(), qos(), qos())
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < StdDuration::from_secs(10) {
        let id = client.send_request(request.clone()).unwrap();
        let until = Instant::now() + StdDuration::from_millis(50);
        while Instant::now() < until {
            while let Some((rid, req)) = server.receive_request().unwrap() {
                assert_eq!(req, request);
                server.send_response(rid, respond(&req)).unwrap();
            }
            if let Some((rid, resp)) = client.receive_response().unwrap() {
                if rid == id {
                    return resp;
                }
            }
            std::thread::sleep(StdDuration::from_millis(1));
        }
    }
    panic!("{service} ({mapping:?}): no response in 10 s");
}

#[test]
fn two_contexts_exchange_every_message_type() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(module_path!(), "two_contexts_exchange_every_message_type") {
        return;
    }
    let ctx_a = Context::with_options(ContextOptions::new().domain_id(7)).unwrap();
    let ctx_b = Context::with_options(ContextOptions::new().domain_id(7)).unwrap();
    assert_eq!(ctx_a.domain_id(), 7);
    let mut a = node(&ctx_a, "sender");
    let mut b = node(&ctx_b, "receiver");

    let header = Header {
        stamp: Time {
            sec: 1_700_000_000,
            nanosec: 42,
        },
        frame_id: "base".into(),
    };
    let mut checked = 0;
    macro_rules! roundtrip {
        ($topic:literal, $value:expr) => {{
            let value = $value;
            let (got, sent) = exchange(&mut a, &mut b, $topic, value.clone());
            assert_eq!(got, value, $topic);
            println!("{}: received after {sent} publication(s)", $topic);
            checked += 1;
        }};
    }
    roundtrip!(
        "time",
        Time {
            sec: -3,
            nanosec: 999_999_999
        }
    );
    roundtrip!("duration", Duration { sec: 2, nanosec: 5 });
    roundtrip!("header", header.clone());
    roundtrip!(
        "joint_states",
        JointState {
            header: header.clone(),
            name: vec!["hip".into(), "knee".into()],
            position: vec![0.5, -1.25],
            velocity: vec![0.0, 3.0],
            effort: vec![1e-9, -7.0],
        }
    );
    let mut cov = [0.0; 36];
    cov.iter_mut().enumerate().for_each(|(i, c)| *c = i as f64);
    roundtrip!(
        "odom",
        Odometry {
            header: header.clone(),
            child_frame_id: "base_link".into(),
            pose: PoseWithCovariance {
                pose: Pose {
                    position: Point {
                        x: 1.0,
                        y: 2.0,
                        z: 3.0
                    },
                    orientation: Quaternion {
                        x: 0.0,
                        y: 0.6,
                        z: 0.0,
                        w: 0.8
                    }
                },
                covariance: Covariance(cov),
            },
            twist: TwistWithCovariance {
                twist: Twist {
                    linear: Vector3 {
                        x: 0.1,
                        y: 0.0,
                        z: 0.0
                    },
                    angular: Vector3 {
                        x: 0.0,
                        y: 0.0,
                        z: -0.2
                    }
                },
                covariance: Covariance(cov),
            },
        }
    );
    roundtrip!(
        "planned_trajectory",
        JointTrajectory {
            header: header.clone(),
            joint_names: vec!["hip".into(), "knee".into()],
            points: (0..21)
                .map(|k| JointTrajectoryPoint {
                    positions: vec![k as f64, -(k as f64)],
                    velocities: vec![0.5, 0.25],
                    accelerations: vec![],
                    effort: vec![3.0, 4.0],
                    time_from_start: Duration::from_secs_f64(0.025 * k as f64),
                })
                .collect(),
        }
    );
    roundtrip!(
        "effort_command",
        Float64MultiArray {
            layout: MultiArrayLayout {
                dim: vec![MultiArrayDimension {
                    label: "joints".into(),
                    size: 2,
                    stride: 2
                }],
                data_offset: 0
            },
            data: vec![1.5, -2.5],
        }
    );
    roundtrip!(
        "diagnostics",
        DiagnosticArray {
            header: header.clone(),
            status: vec![DiagnosticStatus {
                level: DiagnosticStatus::WARN,
                name: "fesdj_mpc: input".into(),
                message: "rejected".into(),
                hardware_id: String::new(),
                values: vec![KeyValue {
                    key: "rejected".into(),
                    value: "3".into()
                }],
            }],
        }
    );

    for (mapping, tag) in [
        (ServiceMapping::Enhanced, "enhanced"),
        (ServiceMapping::Cyclone, "cyclone"),
    ] {
        let r = call::<Trigger>(
            &mut a,
            &mut b,
            mapping,
            &format!("trigger_{tag}"),
            TriggerRequest::default(),
            |_| TriggerResponse {
                success: true,
                message: "triggered".into(),
            },
        );
        assert_eq!(
            r,
            TriggerResponse {
                success: true,
                message: "triggered".into()
            }
        );
        let r = call::<SetBool>(
            &mut a,
            &mut b,
            mapping,
            &format!("set_bool_{tag}"),
            SetBoolRequest { data: true },
            |req| SetBoolResponse {
                success: req.data,
                message: format!("data was {}", req.data),
            },
        );
        assert_eq!(
            r,
            SetBoolResponse {
                success: true,
                message: "data was true".into()
            }
        );
        checked += 2;
    }
    assert_eq!(checked, 12);
    println!("{checked} message/service types exchanged between two contexts");
}
