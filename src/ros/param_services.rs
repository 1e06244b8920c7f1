//! The node's parameter services (`~/get_parameters`, `~/get_parameter_types`,
//! `~/set_parameters`, `~/set_parameters_atomically`, `~/list_parameters`,
//! `~/describe_parameters`, `rcl_interfaces`), answered by the node's own loop.
//!
//! ros2-client serves these from its spinner, which also creates a `/clock` reader of type
//! `builtin_interfaces/msg/Time` for its own simulated time; on a ROS 2 graph where a simulator
//! publishes `/clock` as `rosgraph_msgs/msg/Clock` that reader is a type conflict. The node
//! therefore runs no spinner (it needs none of its graph bookkeeping) and serves the parameter
//! services here, on the values held by ros2-client's parameter store of the node (its
//! validator keeps every parameter read-only). The wire convention is the one ros2-client's
//! spinner used: rmw_fastrtps_cpp's (`ServiceMapping::Enhanced`).

use ros2_client::parameters::raw;
use ros2_client::rcl_interfaces::{
    DescribeParametersRequest, DescribeParametersResponse, GetParameterTypesRequest,
    GetParameterTypesResponse, GetParametersRequest, GetParametersResponse, ListParametersRequest,
    ListParametersResponse, ListParametersResult, SetParametersAtomicallyResponse,
    SetParametersRequest, SetParametersResponse,
};
use ros2_client::{
    Message, Node, Parameter, ParameterValue, RmwRequestId, Server, ServiceMapping, ServiceTypeName,
};

use super::config::{dds, NodeError};
use super::wire::{ros_name, service_qos};

/// The six servers.
pub(crate) struct ParameterServices {
    get: Server<GetParametersRequest, GetParametersResponse>,
    get_types: Server<GetParameterTypesRequest, GetParameterTypesResponse>,
    set: Server<SetParametersRequest, SetParametersResponse>,
    set_atomically: Server<SetParametersRequest, SetParametersAtomicallyResponse>,
    list: Server<ListParametersRequest, ListParametersResponse>,
    describe: Server<DescribeParametersRequest, DescribeParametersResponse>,
}

fn create<Req: Message + Clone + 'static, Resp: Message + Clone + 'static>(
    node: &mut Node,
    fqn: &str,
    service: &str,
    type_name: &str,
) -> Result<Server<Req, Resp>, NodeError> {
    let name = format!("{}/{service}", fqn.trim_end_matches('/'));
    node.create_server::<Req, Resp>(
        ServiceMapping::Enhanced,
        &ros_name(&name)?,
        &ServiceTypeName::new("rcl_interfaces", type_name),
        service_qos(),
        service_qos(),
    )
    .map_err(|e| dds(&name)(e.to_string()))
}

impl ParameterServices {
    /// The servers of the node `fqn` (its fully qualified name).
    pub(crate) fn new(node: &mut Node, fqn: &str) -> Result<ParameterServices, NodeError> {
        Ok(ParameterServices {
            get: create(node, fqn, "get_parameters", "GetParameters")?,
            get_types: create(node, fqn, "get_parameter_types", "GetParameterTypes")?,
            set: create(node, fqn, "set_parameters", "SetParameters")?,
            set_atomically: create(
                node,
                fqn,
                "set_parameters_atomically",
                "SetParametersAtomically",
            )?,
            list: create(node, fqn, "list_parameters", "ListParameters")?,
            describe: create(node, fqn, "describe_parameters", "DescribeParameters")?,
        })
    }

    /// Registers every server with the loop's poll under `token`.
    pub(crate) fn register(
        &mut self,
        registry: &ros2_client::dds::rustdds::mio1::Registry,
        token: ros2_client::dds::rustdds::mio1::Token,
    ) -> std::io::Result<()> {
        use ros2_client::dds::rustdds::mio1::Interest;
        registry.register(&mut self.get, token, Interest::READABLE)?;
        registry.register(&mut self.get_types, token, Interest::READABLE)?;
        registry.register(&mut self.set, token, Interest::READABLE)?;
        registry.register(&mut self.set_atomically, token, Interest::READABLE)?;
        registry.register(&mut self.list, token, Interest::READABLE)?;
        registry.register(&mut self.describe, token, Interest::READABLE)?;
        Ok(())
    }
}

/// The next request waiting at `srv` (`name` in warnings).
fn next_request<Req: Message + 'static, Resp: Message + 'static>(
    srv: &Server<Req, Resp>,
    name: &str,
    warn: &dyn Fn(&str),
) -> Option<(RmwRequestId, Req)> {
    srv.receive_request().unwrap_or_else(|e| {
        warn(&format!("{name}: bad request: {e}"));
        None
    })
}

/// Answers request `id` at `srv` (`name` in warnings).
fn respond<Req: Message + 'static, Resp: Message + 'static>(
    srv: &Server<Req, Resp>,
    name: &str,
    id: RmwRequestId,
    response: Resp,
    warn: &dyn Fn(&str),
) {
    if let Err(e) = srv.send_response(id, response) {
        warn(&format!("{name}: cannot send response: {e}"));
    }
}

/// The `ParameterType` byte of a value.
fn type_of(v: &ParameterValue) -> u8 {
    raw::ParameterValue::from(v.clone()).ptype
}

/// `rcl_interfaces/srv/ListParameters` on `names`: those equal to or below one of `prefixes`
/// (all when there is none), at most `depth` levels below it (0: any depth); `prefixes` of the
/// result are the distinct namespaces (`a.b` of `a.b.c`) of the names listed.
pub(crate) fn list_names(
    names: &[String],
    prefixes: &[String],
    depth: u64,
) -> ListParametersResult {
    let levels = |rest: &str| rest.matches('.').count() as u64 + 1;
    let mut out = ListParametersResult {
        names: Vec::new(),
        prefixes: Vec::new(),
    };
    for name in names {
        let take = if prefixes.is_empty() {
            depth == 0 || levels(name) <= depth
        } else {
            prefixes.iter().any(|p| {
                name == p
                    || name.strip_prefix(p.as_str()).is_some_and(|rest| {
                        rest.strip_prefix('.')
                            .is_some_and(|r| depth == 0 || levels(r) <= depth)
                    })
            })
        };
        if !take {
            continue;
        }
        out.names.push(name.clone());
        if let Some((ns, _)) = name.rsplit_once('.') {
            if !out.prefixes.iter().any(|p| p == ns) {
                out.prefixes.push(ns.to_string());
            }
        }
    }
    out
}

impl ParameterServices {
    /// Answers the waiting parameter requests from the parameters of `node`; `warn` logs a
    /// request that cannot be read or answered.
    pub(crate) fn serve(&self, node: &Node, warn: &dyn Fn(&str)) {
        let s = self;
        while let Some((id, req)) = next_request(&s.get, "~/get_parameters", warn) {
            let values = req
                .names
                .iter()
                .map(|n| {
                    raw::ParameterValue::from(
                        node.get_parameter(n).unwrap_or(ParameterValue::NotSet),
                    )
                })
                .collect();
            respond(
                &s.get,
                "~/get_parameters",
                id,
                GetParametersResponse { values },
                warn,
            );
        }
        while let Some((id, req)) = next_request(&s.get_types, "~/get_parameter_types", warn) {
            let values = req
                .names
                .iter()
                .map(|n| node.get_parameter(n).map_or(0, |v| type_of(&v)))
                .collect();
            let response = GetParameterTypesResponse { values };
            respond(&s.get_types, "~/get_parameter_types", id, response, warn);
        }
        while let Some((id, req)) = next_request(&s.set, "~/set_parameters", warn) {
            let results = req
                .parameter
                .into_iter()
                .map(|p| {
                    let Parameter { name, value } = Parameter::from(p);
                    raw::SetParametersResult::from(node.set_parameter(&name, value))
                })
                .collect();
            let response = SetParametersResponse { results };
            respond(&s.set, "~/set_parameters", id, response, warn);
        }
        while let Some((id, req)) =
            next_request(&s.set_atomically, "~/set_parameters_atomically", warn)
        {
            // Every parameter is read-only: a set succeeds only with the value it has, so
            // setting them one by one changes nothing whatever fails.
            let result = req
                .parameter
                .into_iter()
                .map(|p| {
                    let Parameter { name, value } = Parameter::from(p);
                    node.set_parameter(&name, value)
                })
                .find(|r| r.is_err())
                .unwrap_or(Ok(()));
            let response = SetParametersAtomicallyResponse {
                result: raw::SetParametersResult::from(result),
            };
            respond(
                &s.set_atomically,
                "~/set_parameters_atomically",
                id,
                response,
                warn,
            );
        }
        while let Some((id, req)) = next_request(&s.list, "~/list_parameters", warn) {
            let mut names = node.list_parameters();
            names.sort();
            let result = list_names(&names, &req.prefixes, req.depth);
            respond(
                &s.list,
                "~/list_parameters",
                id,
                ListParametersResponse { result },
                warn,
            );
        }
        while let Some((id, req)) = next_request(&s.describe, "~/describe_parameters", warn) {
            let values = req
                .names
                .iter()
                .map(|n| raw::ParameterDescriptor {
                    name: n.clone(),
                    r#type: node.get_parameter(n).map_or(0, |v| type_of(&v)),
                    description: String::new(),
                    additional_constraints: String::new(),
                    read_only: true,
                    dynamic_typing: false,
                    floating_point_range: Vec::new(),
                    integer_range: Vec::new(),
                })
                .collect();
            let response = DescribeParametersResponse { values };
            respond(&s.describe, "~/describe_parameters", id, response, warn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::list_names;

    #[test]
    fn list_filters_by_prefix_and_depth() {
        let names: Vec<String> = ["a", "b.c", "b.d.e", "bc", "cmd_vel.timeout"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let all = list_names(&names, &[], 0);
        assert_eq!(all.names, names);
        assert_eq!(all.prefixes, ["b", "b.d", "cmd_vel"]);
        assert_eq!(list_names(&names, &[], 1).names, ["a", "bc"]);
        let b = list_names(&names, &["b".to_string()], 0);
        assert_eq!(b.names, ["b.c", "b.d.e"]);
        assert_eq!(list_names(&names, &["b".to_string()], 1).names, ["b.c"]);
    }
}
