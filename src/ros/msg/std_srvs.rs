//! `std_srvs/srv/Trigger` and `std_srvs/srv/SetBool`.

use serde::{Deserialize, Serialize};

use super::RosService;

/// `std_srvs/srv/Trigger` request: empty in the .srv file.
///
/// An empty IDL struct is not allowed, so rosidl gives it one `uint8
/// structure_needs_at_least_one_member` (always 0); on the wire it is that one byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerRequest {
    /// Placeholder member added by rosidl; always 0.
    pub structure_needs_at_least_one_member: u8,
}
impl ros2_client::Message for TriggerRequest {}

/// `std_srvs/srv/Trigger` response: `bool success`, `string message`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerResponse {
    /// Whether the triggered action succeeded.
    pub success: bool,
    /// Informational text (e.g. the error).
    pub message: String,
}
impl ros2_client::Message for TriggerResponse {}

/// `std_srvs/srv/Trigger`.
#[derive(Clone, Copy, Debug)]
pub struct Trigger;
impl RosService for Trigger {
    type Request = TriggerRequest;
    type Response = TriggerResponse;
    const PACKAGE: &'static str = "std_srvs";
    const NAME: &'static str = "Trigger";
}

/// `std_srvs/srv/SetBool` request: `bool data`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetBoolRequest {
    /// The value to set.
    pub data: bool,
}
impl ros2_client::Message for SetBoolRequest {}

/// `std_srvs/srv/SetBool` response: `bool success`, `string message`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetBoolResponse {
    /// Whether the value was set.
    pub success: bool,
    /// Informational text.
    pub message: String,
}
impl ros2_client::Message for SetBoolResponse {}

/// `std_srvs/srv/SetBool`.
#[derive(Clone, Copy, Debug)]
pub struct SetBool;
impl RosService for SetBool {
    type Request = SetBoolRequest;
    type Response = SetBoolResponse;
    const PACKAGE: &'static str = "std_srvs";
    const NAME: &'static str = "SetBool";
}
