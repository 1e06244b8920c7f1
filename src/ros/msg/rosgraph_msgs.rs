//! `rosgraph_msgs/msg/Clock`.

use serde::{Deserialize, Serialize};

use super::{ros_message, Time};

/// `rosgraph_msgs/msg/Clock`: `builtin_interfaces/Time clock`, the simulated time a simulator
/// publishes on `/clock` (what `use_sim_time` nodes run on).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    /// The simulated time.
    pub clock: Time,
}
ros_message!(Clock, "rosgraph_msgs", "Clock");
