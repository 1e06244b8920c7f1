//! DDS plumbing of the node: QoS profiles, creation of publishers and service servers from fully
//! qualified names, and filling outgoing messages in place.

use std::sync::Arc;
use std::time::Duration as StdDuration;

use ros2_client::qos::{Durability, History, WhenFull};
use ros2_client::{Name, Node, Publisher, QosProfile, Server};
use serde::Serialize;

use super::config::{dds, NodeError};
use super::diagnostics::Diagnostics;
use super::msg::{Duration, JointTrajectory, JointTrajectoryPoint, RosMessage, RosService, Time};
use super::names::{self, NameError};
use super::provider::JointPlan;

pub(crate) fn ros_name(fqn: &str) -> Result<Name, NodeError> {
    let (ns, base) = names::split_fqn(fqn);
    Name::new(ns, base).map_err(|e| NodeError::Name {
        name: fqn.into(),
        source: NameError::BadToken {
            name: format!("{fqn} ({e:?})"),
            reason: "rejected by ros2-client",
        },
    })
}

pub(crate) fn input_qos() -> QosProfile {
    QosProfile::subscription_default().history(History::KeepLast { depth: 10 })
}

pub(crate) fn output_qos() -> QosProfile {
    QosProfile::publisher_default()
        .reliability_reliable(WhenFull::Fail)
        .durability(Durability::Volatile)
        .history(History::KeepLast { depth: 10 })
}

pub(crate) fn service_qos() -> QosProfile {
    QosProfile::publisher_default()
        .reliability_reliable(WhenFull::Wait(StdDuration::from_millis(20)))
        .durability(Durability::Volatile)
        .history(History::KeepLast { depth: 10 })
}

pub(crate) fn publisher<M: RosMessage + Serialize>(
    node: &mut Node,
    fqn: &str,
) -> Result<Publisher<Arc<M>>, NodeError> {
    let topic = node
        .create_topic(&ros_name(fqn)?, M::type_name(), &output_qos())
        .map_err(|e| dds(fqn)(e.to_string()))?;
    node.create_publisher::<Arc<M>>(&topic, None)
        .map_err(|e| dds(fqn)(e.to_string()))
}

pub(crate) fn server<S: RosService>(
    node: &mut Node,
    mapping: ros2_client::ServiceMapping,
    fqn: &str,
) -> Result<Server<S::Request, S::Response>, NodeError> {
    node.create_server::<S::Request, S::Response>(
        mapping,
        &ros_name(fqn)?,
        &S::type_name(),
        service_qos(),
        service_qos(),
    )
    .map_err(|e| dds(fqn)(e.to_string()))
}

pub(crate) fn publish<M: Serialize>(
    publisher: &Publisher<Arc<M>>,
    msg: &Arc<M>,
    diag: &mut Diagnostics,
) {
    if publisher.publish(Arc::clone(msg)).is_err() {
        diag.publish_failures += 1;
    }
}

pub(crate) fn refill(dst: &mut Vec<f64>, src: &[f64]) {
    dst.clear();
    dst.extend_from_slice(src);
}

/// Writes `plan` into `msg` (positions, velocities, efforts and `time_from_start` of every
/// grid point), reusing the points' vectors. `stamp` is the state stamp the plan starts from.
pub fn fill_trajectory(msg: &mut JointTrajectory, plan: &JointPlan, n_joints: usize, stamp: Time) {
    msg.header.stamp = stamp;
    let k = plan.len();
    msg.points.truncate(k);
    msg.points.resize_with(k, JointTrajectoryPoint::default);
    for (i, point) in msg.points.iter_mut().enumerate() {
        let row = i * n_joints..(i + 1) * n_joints;
        refill(&mut point.positions, &plan.q[row.clone()]);
        refill(&mut point.velocities, &plan.v[row.clone()]);
        refill(&mut point.effort, &plan.u[row]);
        point.accelerations.clear();
        point.time_from_start = Duration::from_secs_f64(plan.times[i]);
    }
}
