//! Statistics of solve times, shared by closed-loop runs
//! ([`run_closed_loop`](super::run_closed_loop)) and the ROS node's diagnostics.

/// Nearest-rank percentile `p` ∈ [0, 1] of an ascending slice (0 when empty).
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}
