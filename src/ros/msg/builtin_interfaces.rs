//! `builtin_interfaces/msg/Time` and `builtin_interfaces/msg/Duration`.

use serde::{Deserialize, Serialize};

use super::ros_message;

/// `builtin_interfaces/msg/Time`: `int32 sec`, `uint32 nanosec` (nanosec < 10⁹).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Time {
    /// Whole seconds (since the Unix epoch for wall-clock stamps).
    pub sec: i32,
    /// Nanoseconds within the second, in `[0, 10⁹)`.
    pub nanosec: u32,
}
ros_message!(Time, "builtin_interfaces", "Time");

impl Time {
    /// The zero stamp (what `ros2 topic pub` sends when no stamp is set).
    pub const ZERO: Time = Time { sec: 0, nanosec: 0 };

    /// From nanoseconds since the epoch; saturates outside the `i32` seconds range.
    pub fn from_nanos(nanos: i64) -> Time {
        let sec = nanos.div_euclid(1_000_000_000);
        let nanosec = nanos.rem_euclid(1_000_000_000) as u32;
        if sec > i64::from(i32::MAX) {
            Time {
                sec: i32::MAX,
                nanosec: 999_999_999,
            }
        } else if sec < i64::from(i32::MIN) {
            Time {
                sec: i32::MIN,
                nanosec: 0,
            }
        } else {
            Time {
                sec: sec as i32,
                nanosec,
            }
        }
    }

    /// Nanoseconds since the epoch. A `nanosec` field ≥ 10⁹ (invalid on the wire) is still
    /// counted arithmetically, so the result is monotone in both fields.
    pub fn to_nanos(self) -> i64 {
        i64::from(self.sec) * 1_000_000_000 + i64::from(self.nanosec)
    }

    /// Seconds since the epoch as `f64`.
    pub fn to_secs_f64(self) -> f64 {
        f64::from(self.sec) + f64::from(self.nanosec) * 1e-9
    }

    /// Current wall-clock time (the ROS "system time" clock).
    pub fn now() -> Time {
        match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => Time::from_nanos(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)),
            Err(_) => Time::ZERO,
        }
    }

    /// Whether `nanosec` is in its valid range.
    pub fn is_normalized(self) -> bool {
        self.nanosec < 1_000_000_000
    }
}

/// `builtin_interfaces/msg/Duration`: `int32 sec`, `uint32 nanosec`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Duration {
    /// Whole seconds (may be negative; `nanosec` is always added).
    pub sec: i32,
    /// Nanoseconds added to `sec`, in `[0, 10⁹)`.
    pub nanosec: u32,
}
ros_message!(Duration, "builtin_interfaces", "Duration");

impl Duration {
    /// From seconds; rounds to the nearest nanosecond and saturates (NaN gives zero).
    pub fn from_secs_f64(secs: f64) -> Duration {
        if secs.is_nan() {
            return Duration::default();
        }
        let nanos = (secs * 1e9).round();
        let nanos = if nanos >= i64::MAX as f64 {
            i64::MAX
        } else if nanos <= i64::MIN as f64 {
            i64::MIN
        } else {
            nanos as i64
        };
        let t = Time::from_nanos(nanos);
        Duration {
            sec: t.sec,
            nanosec: t.nanosec,
        }
    }

    /// Seconds as `f64`.
    pub fn to_secs_f64(self) -> f64 {
        f64::from(self.sec) + f64::from(self.nanosec) * 1e-9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_nanos_round_trip_and_negative_values() {
        let t = Time::from_nanos(-1);
        assert_eq!(
            t,
            Time {
                sec: -1,
                nanosec: 999_999_999
            }
        );
        assert_eq!(t.to_nanos(), -1);
        let t = Time::from_nanos(1_700_000_000_123_456_789);
        assert_eq!(t.to_nanos(), 1_700_000_000_123_456_789);
        assert_eq!(Time::from_nanos(i64::MAX).sec, i32::MAX);
    }

    #[test]
    fn duration_from_seconds_rounds_and_saturates() {
        assert_eq!(
            Duration::from_secs_f64(0.25),
            Duration {
                sec: 0,
                nanosec: 250_000_000
            }
        );
        assert_eq!(
            Duration::from_secs_f64(-0.5),
            Duration {
                sec: -1,
                nanosec: 500_000_000
            }
        );
        assert_eq!(Duration::from_secs_f64(f64::NAN), Duration::default());
        assert_eq!(Duration::from_secs_f64(1e300).sec, i32::MAX);
        assert!((Duration::from_secs_f64(1.5).to_secs_f64() - 1.5).abs() < 1e-12);
    }
}
