//! The node's services: `~/plan` (plan once now and publish), `~/reset` (drop the input history
//! and the provider's warm starts), `~/enable` (start or stop publishing commands).

use ros2_client::ros2::LogLevel;
use ros2_client::{Message, RmwRequestId, Server};

use super::{NodeRuntime, PlanProvider};
use crate::ros::msg::{SetBoolResponse, TriggerResponse};

impl NodeRuntime {
    pub(super) fn serve<P: PlanProvider + ?Sized>(&mut self, provider: &mut P) {
        self.param_services
            .serve(&self.node, &|text| self.log(LogLevel::Warn, text));
        while let Some((id, _)) = self.next_request(&self.plan_srv, "~/plan") {
            let response = match self.plan_now(provider) {
                Ok(()) => TriggerResponse {
                    success: true,
                    message: format!(
                        "published {} points, status {}, solve time {:.3} ms",
                        self.plan.len(),
                        self.plan.status.as_str(),
                        self.plan.stats.solve_time * 1e3
                    ),
                },
                Err(reason) => TriggerResponse {
                    success: false,
                    message: reason,
                },
            };
            self.respond(&self.plan_srv, "~/plan", id, response);
        }
        while let Some((id, _)) = self.next_request(&self.reset_srv, "~/reset") {
            self.validator.reset();
            let response = match provider.reset() {
                Ok(()) => TriggerResponse {
                    success: true,
                    message: "reset".into(),
                },
                Err(e) => TriggerResponse {
                    success: false,
                    message: format!("reset failed: {e}"),
                },
            };
            self.respond(&self.reset_srv, "~/reset", id, response);
        }
        while let Some((id, request)) = self.next_request(&self.enable_srv, "~/enable") {
            let want = request.data;
            let response = match provider.enable(want) {
                Ok(()) => {
                    let was = self.enabled;
                    self.enabled = want;
                    self.diag.enabled = want;
                    let word = if want { "enabled" } else { "disabled" };
                    let message = if was == want {
                        format!("already {word}")
                    } else {
                        word.to_string()
                    };
                    self.log(LogLevel::Info, &message);
                    SetBoolResponse {
                        success: true,
                        message,
                    }
                }
                Err(e) => SetBoolResponse {
                    success: false,
                    message: format!("provider refused: {e}"),
                },
            };
            self.respond(&self.enable_srv, "~/enable", id, response);
        }
    }

    /// The next request waiting at the service `srv` (`name` in warnings): `None` when there
    /// is none, or when it cannot be read (logged; the rest waits for the next round).
    fn next_request<Req: Message + 'static, Resp: Message + 'static>(
        &self,
        srv: &Server<Req, Resp>,
        name: &str,
    ) -> Option<(RmwRequestId, Req)> {
        match srv.receive_request() {
            Ok(request) => request,
            Err(e) => {
                self.log(LogLevel::Warn, &format!("{name}: bad request: {e}"));
                None
            }
        }
    }

    /// Answers request `id` of the service `srv` (`name` in warnings); a failure is logged.
    fn respond<Req: Message + 'static, Resp: Message + 'static>(
        &self,
        srv: &Server<Req, Resp>,
        name: &str,
        id: RmwRequestId,
        response: Resp,
    ) {
        if let Err(e) = srv.send_response(id, response) {
            self.log(
                LogLevel::Warn,
                &format!("{name}: cannot send response: {e}"),
            );
        }
    }
}
