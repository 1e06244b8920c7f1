//! `diagnostic_msgs`: `DiagnosticArray`, `DiagnosticStatus`, `KeyValue`.

use serde::{Deserialize, Serialize};

use super::{ros_message, Header};

/// `diagnostic_msgs/msg/KeyValue`: `string key`, `string value`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyValue {
    /// Key.
    pub key: String,
    /// Value, as text.
    pub value: String,
}
ros_message!(KeyValue, "diagnostic_msgs", "KeyValue");

/// `diagnostic_msgs/msg/DiagnosticStatus`: `byte level`, `string name`, `string message`,
/// `string hardware_id`, `KeyValue[] values`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticStatus {
    /// One of [`DiagnosticStatus::OK`], `WARN`, `ERROR`, `STALE` (`byte` is an octet in ROS 2).
    pub level: u8,
    /// Name of the component, e.g. `fesdj_mpc: solver`.
    pub name: String,
    /// Human-readable summary.
    pub message: String,
    /// Hardware identifier (empty for software components).
    pub hardware_id: String,
    /// Key/value details.
    pub values: Vec<KeyValue>,
}
ros_message!(DiagnosticStatus, "diagnostic_msgs", "DiagnosticStatus");

impl DiagnosticStatus {
    /// Level: everything fine.
    pub const OK: u8 = 0;
    /// Level: degraded.
    pub const WARN: u8 = 1;
    /// Level: failing.
    pub const ERROR: u8 = 2;
    /// Level: no recent data.
    pub const STALE: u8 = 3;
}

/// `diagnostic_msgs/msg/DiagnosticArray`: `Header header`, `DiagnosticStatus[] status`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiagnosticArray {
    /// Stamp of the report.
    pub header: Header,
    /// One status per component.
    pub status: Vec<DiagnosticStatus>,
}
ros_message!(DiagnosticArray, "diagnostic_msgs", "DiagnosticArray");
