//! [`NodeRuntime`]: the ROS 2 node `fesdj_mpc` around a [`PlanProvider`].
//!
//! | entity | name (before remapping) | type |
//! |---|---|---|
//! | subscription | `joint_states` | `sensor_msgs/msg/JointState` |
//! | subscription (with `floating_base`) | `odom` | `nav_msgs/msg/Odometry` |
//! | subscription (with `floating_base`) | `cmd_vel` | `geometry_msgs/msg/Twist` |
//! | subscription (with `use_sim_time`) | `/clock` | `rosgraph_msgs/msg/Clock` |
//! | publisher | `~/planned_trajectory` | `trajectory_msgs/msg/JointTrajectory` |
//! | publisher | `~/planned_path` | `nav_msgs/msg/Path` |
//! | publisher | `~/planned_markers` | `visualization_msgs/msg/MarkerArray` |
//! | publisher | `~/effort_command` | `std_msgs/msg/Float64MultiArray` |
//! | publisher | `/diagnostics` | `diagnostic_msgs/msg/DiagnosticArray` |
//! | publisher (with `sim`) | `joint_states` of the provider's simulated plant | `sensor_msgs/msg/JointState` |
//! | service | `~/plan`, `~/reset` | `std_srvs/srv/Trigger` |
//! | service | `~/enable` | `std_srvs/srv/SetBool` |
//! | services | `~/get_parameters`, `~/list_parameters`, … | `rcl_interfaces` (`param_services.rs`) |
//!
//! One thread runs the loop of [`NodeRuntime::run`] (in `node/run_loop.rs`, on the wall clock
//! or with `use_sim_time` on `/clock`): it waits on the DDS readers with `mio`, drains and
//! validates input as it arrives, answers service requests, and on every control tick
//! (`rate_hz`) plans from the latest valid state and publishes the trajectory and the effort
//! command; it also answers the parameter services (`param_services.rs`). There is no
//! ros2-client spinner: it would add a `/clock` reader of type `builtin_interfaces/msg/Time`
//! (its own simulated time) to the graph, a type conflict with a simulator's
//! `rosgraph_msgs/msg/Clock`, and the node needs none of its graph bookkeeping. Outgoing
//! messages are built in buffers that are reused tick after tick; RustDDS still allocates its
//! serialised sample and each received message internally.
//!
//! The node owns no model: it calls a [`PlanProvider`] (the controller) and, with `sim: true`,
//! steps a [`SimulatedRobot`] (a [`crate::mpc::Plant`], attached with
//! [`NodeRuntime::set_plant`]) apart from it. Every tick then first advances the plant by one
//! period with the effort published during the last one, publishes its state on
//! `joint_states` and takes it as the measured state; received `joint_states` are then
//! ignored.
//!
//! QoS: the subscriptions are best effort, keep last 10 (they match reliable and best-effort
//! publishers); the publishers are reliable, volatile, keep last 10, and never block the loop
//! (a full send window drops the sample and counts a publish failure); the services are
//! reliable, keep last 10.

use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

use serde::de::DeserializeOwned;

use ros2_client::dds::rustdds::mio1::{Events, Interest, Poll, Token};
use ros2_client::ros2::LogLevel;
use ros2_client::{
    Context, ContextOptions, Node, NodeName, NodeOptions, ParameterValue, Publisher, RosoutRaw,
    Server, Subscription,
};

use super::cmd_vel::{CmdVelAccepted, CmdVelFilter};
use super::config::dds;
pub use super::config::{NodeConfig, NodeError, Topics, DEFAULT_NODE_NAME};
use super::diagnostics::Diagnostics;
use super::msg::{
    Clock, DiagnosticArray, Float64MultiArray, JointState, JointTrajectory, Marker, MarkerArray,
    MultiArrayDimension, Odometry, Path, PoseStamped, RosMessage, SetBool, SetBoolRequest,
    SetBoolResponse, Time, Trigger, TriggerRequest, TriggerResponse, Twist,
};
use super::names::NameError;
use super::plan_view::{fill_markers, fill_path, PlanView};
use super::provider::{JointPlan, PlanProvider};
use super::sim_plant::SimulatedRobot;
use super::validate::{StateFault, StateValidator};
pub use super::wire::fill_trajectory;

mod run_loop;
mod services;
use super::param_services::ParameterServices;
use super::wire::{input_qos, publish, publisher, refill, ros_name, server};

const JOINT_STATES: Token = Token(0);
const ODOM: Token = Token(1);
const PLAN: Token = Token(2);
const RESET: Token = Token(3);
const ENABLE: Token = Token(4);
const CLOCK: Token = Token(5);
const CMD_VEL: Token = Token(6);
const PARAMETERS: Token = Token(7);
/// Upper bound of messages taken from one reader per wake-up (keeps the loop responsive).
const MAX_DRAIN: usize = 256;

/// The running node. Create with [`NodeRuntime::new`], drive with [`NodeRuntime::run`].
pub struct NodeRuntime {
    config: NodeConfig,
    topics: Topics,
    node: Node,
    param_services: ParameterServices,
    joint_sub: Subscription<JointState>,
    odom_sub: Option<Subscription<Odometry>>,
    /// `use_sim_time`: `/clock` (rosgraph_msgs/Clock) and the last time it gave.
    clock_sub: Option<Subscription<Clock>>,
    sim_now: Option<Time>,
    /// `floating_base`: `cmd_vel` and the command made of it.
    cmd_vel_sub: Option<Subscription<Twist>>,
    cmd_vel: CmdVelFilter,
    cmd_vel_warned: Option<Instant>,
    cmd_vel_suppressed: u64,
    /// Rejected and clamped commands at the last diagnostics report.
    cmd_vel_reported: (u64, u64),
    /// The plan as RViz shows it, its messages and the pools of their reused elements.
    view: PlanView,
    path_pub: Publisher<Arc<Path>>,
    markers_pub: Publisher<Arc<MarkerArray>>,
    path_msg: Arc<Path>,
    markers_msg: Arc<MarkerArray>,
    path_pool: Vec<PoseStamped>,
    markers_pool: Vec<Marker>,
    /// `/clock` went back since the loop last looked (a simulator restart).
    clock_went_back: bool,
    trajectory_pub: Publisher<Arc<JointTrajectory>>,
    effort_pub: Publisher<Arc<Float64MultiArray>>,
    diagnostics_pub: Publisher<Arc<DiagnosticArray>>,
    plan_srv: Server<TriggerRequest, TriggerResponse>,
    reset_srv: Server<TriggerRequest, TriggerResponse>,
    enable_srv: Server<SetBoolRequest, SetBoolResponse>,
    poll: Poll,
    events: Events,
    validator: StateValidator,
    plan: JointPlan,
    trajectory_msg: Arc<JointTrajectory>,
    effort_msg: Arc<Float64MultiArray>,
    diagnostics_msg: Arc<DiagnosticArray>,
    fallback: Vec<f64>,
    diag: Diagnostics,
    enabled: bool,
    throttle: StdDuration,
    period: StdDuration,
    /// `command_rate_hz` above `rate_hz` (and no internal plant): the period of the commands
    /// sent between plan ticks ([`PlanProvider::track`]).
    command_period: Option<StdDuration>,
    /// `sim: true`: publisher of the simulated `joint_states`, its message, the effort
    /// applied to the plant during the current period, and whether the plant has a state yet.
    sim: Option<SimPlant>,
}

/// The internal plant of `sim: true`: its publisher and message, the plant itself (attached
/// with [`NodeRuntime::set_plant`]) and the effort applied to it during the current period.
struct SimPlant {
    joint_pub: Publisher<Arc<JointState>>,
    msg: Arc<JointState>,
    state: super::provider::RobotState,
    robot: Option<SimulatedRobot>,
    applied: Vec<f64>,
    started: bool,
}

impl NodeRuntime {
    /// Validates the parameters, joins the DDS domain and creates the node, its topics,
    /// services and parameter services.
    pub fn new(config: NodeConfig) -> Result<NodeRuntime, NodeError> {
        config.params.validate()?;
        let topics = config.topics()?;
        let p = &config.params;

        let context = Context::with_options(ContextOptions::new().domain_id(config.domain_id))
            .map_err(|e| {
                dds(format!("DDS participant in domain {}", config.domain_id))(e.to_string())
            })?;
        let mut options = NodeOptions::new()
            .enable_rosout(true)
            // Served by the node's loop (`param_services.rs`), not by ros2-client's
            // spinner.
            .start_parameter_services(false);
        let declared = p.declarations();
        for (name, value) in &declared {
            options = options.declare_parameter(name, value.clone());
        }
        // Read-only at run time: accept only the value a parameter already has.
        let fixed: Vec<(String, ParameterValue)> = declared
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect();
        options = options.parameter_validator(Box::new(move |name, value| match fixed.iter().find(|(n, _)| n == name) {
            Some((_, current)) if current == value => Ok(()),
            Some(_) => Err(format!("parameter '{name}' is read-only while the node runs; restart the node to change it")),
            None => Ok(()),
        }));
        let node_name =
            NodeName::new(&config.namespace, &config.node_name).map_err(|e| NodeError::Name {
                name: config.fully_qualified_name(),
                source: NameError::BadToken {
                    name: format!("{e:?}"),
                    reason: "rejected by ros2-client",
                },
            })?;
        let mut node = context
            .new_node(node_name, options)
            .map_err(|e| dds("node")(e.to_string()))?;

        let mut joint_sub = {
            let topic = node
                .create_topic(
                    &ros_name(&topics.joint_states)?,
                    JointState::type_name(),
                    &input_qos(),
                )
                .map_err(|e| dds(&topics.joint_states)(e.to_string()))?;
            node.create_subscription::<JointState>(&topic, None)
                .map_err(|e| dds(&topics.joint_states)(e.to_string()))?
        };
        let mut odom_sub = match &topics.odom {
            Some(odom) => {
                let topic = node
                    .create_topic(&ros_name(odom)?, Odometry::type_name(), &input_qos())
                    .map_err(|e| dds(odom)(e.to_string()))?;
                Some(
                    node.create_subscription::<Odometry>(&topic, None)
                        .map_err(|e| dds(odom)(e.to_string()))?,
                )
            }
            None => None,
        };
        // Our own reader of `/clock`, of the type simulators publish (rosgraph_msgs/Clock;
        // ros2-client's built-in clock reader expects builtin_interfaces/Time), which also
        // wakes the loop when the simulated time moves.
        let mut clock_sub = if p.use_sim_time {
            let topic = node
                .create_topic(&ros_name("/clock")?, Clock::type_name(), &input_qos())
                .map_err(|e| dds("/clock")(e.to_string()))?;
            Some(
                node.create_subscription::<Clock>(&topic, None)
                    .map_err(|e| dds("/clock")(e.to_string()))?,
            )
        } else {
            None
        };
        let mut cmd_vel_sub = match &topics.cmd_vel {
            Some(cmd_vel) => {
                let topic = node
                    .create_topic(&ros_name(cmd_vel)?, Twist::type_name(), &input_qos())
                    .map_err(|e| dds(cmd_vel)(e.to_string()))?;
                Some(
                    node.create_subscription::<Twist>(&topic, None)
                        .map_err(|e| dds(cmd_vel)(e.to_string()))?,
                )
            }
            None => None,
        };
        let trajectory_pub = publisher::<JointTrajectory>(&mut node, &topics.planned_trajectory)?;
        let path_pub = publisher::<Path>(&mut node, &topics.planned_path)?;
        let markers_pub = publisher::<MarkerArray>(&mut node, &topics.planned_markers)?;
        let effort_pub = publisher::<Float64MultiArray>(&mut node, &topics.effort_command)?;
        let diagnostics_pub = publisher::<DiagnosticArray>(&mut node, &topics.diagnostics)?;
        let mapping = p.service_mapping.mapping();
        let mut plan_srv = server::<Trigger>(&mut node, mapping, &topics.plan)?;
        let mut reset_srv = server::<Trigger>(&mut node, mapping, &topics.reset)?;
        let mut enable_srv = server::<SetBool>(&mut node, mapping, &topics.enable)?;
        let mut param_services = ParameterServices::new(&mut node, &config.fully_qualified_name())?;

        let poll = Poll::new()?;
        let registry = poll.registry();
        registry.register(&mut joint_sub, JOINT_STATES, Interest::READABLE)?;
        if let Some(sub) = &mut odom_sub {
            registry.register(sub, ODOM, Interest::READABLE)?;
        }
        if let Some(sub) = &mut clock_sub {
            registry.register(sub, CLOCK, Interest::READABLE)?;
        }
        if let Some(sub) = &mut cmd_vel_sub {
            registry.register(sub, CMD_VEL, Interest::READABLE)?;
        }
        registry.register(&mut plan_srv, PLAN, Interest::READABLE)?;
        registry.register(&mut reset_srv, RESET, Interest::READABLE)?;
        registry.register(&mut enable_srv, ENABLE, Interest::READABLE)?;
        param_services.register(registry, PARAMETERS)?;

        let effort_order = p.effort_joint_order().to_vec();
        let nu = effort_order.len();
        let sim = if p.sim {
            Some(SimPlant {
                joint_pub: publisher::<JointState>(&mut node, &topics.joint_states)?,
                msg: Arc::new(JointState {
                    name: p.joint_names.clone(),
                    ..Default::default()
                }),
                state: super::provider::RobotState::new(p.joint_names.len(), false),
                robot: None,
                applied: vec![0.0; nu],
                started: false,
            })
        } else {
            None
        };
        let trajectory_msg = Arc::new(JointTrajectory {
            joint_names: p.joint_names.clone(),
            ..Default::default()
        });
        let mut effort_msg = Float64MultiArray::default();
        effort_msg.layout.dim.push(MultiArrayDimension {
            label: "effort_joints".into(),
            size: nu as u32,
            stride: nu as u32,
        });
        effort_msg.data.reserve(nu);

        Ok(NodeRuntime {
            validator: StateValidator::new(&p.joint_names, p.floating_base, p.stale_state_timeout),
            plan: JointPlan::default(),
            trajectory_msg,
            effort_msg: Arc::new(effort_msg),
            diagnostics_msg: Arc::new(DiagnosticArray::default()),
            fallback: vec![0.0; nu],
            diag: Diagnostics::new(p.start_enabled),
            enabled: p.start_enabled,
            throttle: StdDuration::from_secs_f64(p.warn_throttle_s),
            period: StdDuration::from_secs_f64(1.0 / p.rate_hz),
            // The internal plant steps once per tick with one command: nothing to track.
            command_period: (p.command_rate_hz > p.rate_hz && sim.is_none())
                .then(|| StdDuration::from_secs_f64(1.0 / p.command_rate_hz)),
            events: Events::with_capacity(64),
            poll,
            joint_sub,
            odom_sub,
            clock_sub,
            sim_now: None,
            clock_went_back: false,
            cmd_vel_sub,
            cmd_vel: CmdVelFilter::new(p.cmd_vel),
            cmd_vel_warned: None,
            cmd_vel_suppressed: 0,
            cmd_vel_reported: (0, 0),
            view: PlanView::default(),
            path_pub,
            markers_pub,
            path_msg: Arc::new(Path::default()),
            markers_msg: Arc::new(MarkerArray::default()),
            path_pool: Vec::new(),
            markers_pool: Vec::new(),
            trajectory_pub,
            effort_pub,
            diagnostics_pub,
            plan_srv,
            reset_srv,
            enable_srv,
            param_services,
            sim,
            node,
            topics,
            config,
        })
        .inspect(|rt| {
            rt.log(
                LogLevel::Info,
                &format!("started in domain {}", rt.config.domain_id),
            )
        })
    }

    /// `sim: true`: the plant the node steps every tick with the effort it published during
    /// the last period and whose state it publishes on `joint_states` (and plans from).
    /// Without `sim: true` there is no internal plant and `plant` is handed back.
    pub fn set_plant(&mut self, plant: SimulatedRobot) -> Result<(), Box<SimulatedRobot>> {
        match &mut self.sim {
            Some(sim) => {
                sim.robot = Some(plant);
                Ok(())
            }
            None => Err(Box::new(plant)),
        }
    }

    /// The configuration it runs with.
    pub fn config(&self) -> &NodeConfig {
        &self.config
    }

    /// Fully qualified topic and service names.
    pub fn topics(&self) -> &Topics {
        &self.topics
    }

    /// Counters so far.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diag
    }

    /// Whether commands are being published.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Effort commands published so far (plans, fallback and tracking commands).
    fn commands_sent(&self) -> u64 {
        let d = &self.diag;
        d.plans_published + d.fallback_commands + d.tracking_commands
    }

    /// Publishes `/diagnostics` when `next` has come, and schedules the next one.
    fn diagnostics_due(&mut self, now: Instant, next: &mut Instant, period: StdDuration) {
        if now >= *next {
            self.publish_diagnostics(now);
            *next += period;
            if *next <= now {
                *next = now + period;
            }
        }
    }

    fn log_summary(&self) {
        let d = &self.diag;
        let mut summary = format!(
            "shutting down after {} ticks: {} plans published, {} plan errors, {} deadline \
             misses, {} fallback and {} tracking commands, {} publish failures",
            d.ticks,
            d.plans_published,
            d.plan_errors,
            d.deadline_misses,
            d.fallback_commands,
            d.tracking_commands,
            d.publish_failures
        );
        if let Some(s) = d.solve_times() {
            summary.push_str(&format!(
                "; solve time p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms (last {} plans)",
                s.p50 * 1e3,
                s.p99 * 1e3,
                s.max * 1e3,
                s.count
            ));
        }
        self.log(LogLevel::Info, &summary);
    }

    fn log(&self, level: LogLevel, text: &str) {
        log_to(&self.node, &self.config, level, text);
    }

    /// The node's clock: the last `/clock` with `use_sim_time` (zero before the first), else
    /// the system time.
    fn now(&self) -> Time {
        if self.config.params.use_sim_time {
            self.sim_now.unwrap_or_default()
        } else {
            Time::now()
        }
    }

    fn drain_inputs(&mut self) {
        // The clock first: states that arrived with it are judged by the newest time.
        self.drain_clock();
        for _ in 0..MAX_DRAIN {
            let Some(msg) = self.next_sample(&self.joint_sub, "joint_states") else {
                break;
            };
            // With the internal plant, joint_states come from it (also our own echo).
            if self.sim.is_none() {
                let r = self.validator.accept_joint_state(&msg, self.now());
                self.counted(r);
            }
        }
        self.drain_cmd_vel();
        if self.odom_sub.is_none() {
            return;
        }
        for _ in 0..MAX_DRAIN {
            let next = self
                .odom_sub
                .as_ref()
                .and_then(|sub| self.next_sample(sub, "odom"));
            let Some(msg) = next else { break };
            let r = self.validator.accept_odometry(&msg, self.now());
            self.counted(r);
        }
    }

    /// Takes the waiting `cmd_vel` messages into the command filter; a rejected or clamped one
    /// is logged (throttled like the input warnings).
    fn drain_cmd_vel(&mut self) {
        for _ in 0..MAX_DRAIN {
            let next = self
                .cmd_vel_sub
                .as_ref()
                .and_then(|sub| self.next_sample(sub, "cmd_vel"));
            let Some(msg) = next else { break };
            let problem = match self.cmd_vel.accept(&msg, self.now().to_nanos()) {
                Ok(CmdVelAccepted::AsGiven) => None,
                Ok(CmdVelAccepted::Clamped) => Some(format!(
                    "cmd_vel ({:.3}, {:.3}, {:.3}) beyond the limits (cmd_vel.*): clamped",
                    msg.linear.x, msg.linear.y, msg.angular.z
                )),
                Err(fault) => Some(fault.to_string()),
            };
            if let Some(text) = problem {
                let now = Instant::now();
                if self
                    .cmd_vel_warned
                    .is_some_and(|t| now.duration_since(t) < self.throttle)
                {
                    self.cmd_vel_suppressed += 1;
                } else {
                    let more = std::mem::take(&mut self.cmd_vel_suppressed);
                    let text = if more > 0 {
                        format!("{text} ({more} similar suppressed)")
                    } else {
                        text
                    };
                    self.log(LogLevel::Warn, &text);
                    self.cmd_vel_warned = Some(now);
                }
            }
        }
    }

    /// Hands the blended `cmd_vel` command to the provider (once one was received).
    fn apply_cmd_vel<P: PlanProvider + ?Sized>(&mut self, provider: &mut P) {
        if self.cmd_vel_sub.is_none() {
            return;
        }
        if let Some(cmd) = self.cmd_vel.update(self.now().to_nanos()) {
            provider.set_velocity_command(cmd);
        }
    }

    /// Publishes the provider's view of the plan just published (`~/planned_path`,
    /// `~/planned_markers`), if it has one.
    fn publish_view<P: PlanProvider + ?Sized>(&mut self, provider: &mut P, stamp: Time) {
        if !provider.plan_view(&mut self.view) {
            return;
        }
        let frame = &self.config.params.visualization_frame;
        fill_path(
            Arc::make_mut(&mut self.path_msg),
            &mut self.path_pool,
            &self.view,
            stamp,
            frame,
        );
        fill_markers(
            Arc::make_mut(&mut self.markers_msg),
            &mut self.markers_pool,
            &self.view,
            stamp,
            frame,
            self.config.params.visualization_force_scale,
        );
        publish(&self.path_pub, &self.path_msg, &mut self.diag);
        publish(&self.markers_pub, &self.markers_msg, &mut self.diag);
    }

    /// The `cmd_vel` entry of `/diagnostics` (third status, with `floating_base`).
    fn fill_cmd_vel_status(&mut self, msg: &mut DiagnosticArray) {
        if self.cmd_vel_sub.is_none() {
            return;
        }
        if msg.status.len() < 3 {
            let name = format!("{}: cmd_vel", self.config.node_name);
            msg.status.push(super::cmd_vel::status_with_keys(&name));
        }
        let reported = (self.cmd_vel.rejected, self.cmd_vel.clamped);
        let window = (
            reported.0 - self.cmd_vel_reported.0,
            reported.1 - self.cmd_vel_reported.1,
        );
        self.cmd_vel_reported = reported;
        if let Some(status) = msg.status.get_mut(2) {
            self.cmd_vel.fill_status(status, window);
        }
    }

    /// The next sample waiting at `sub` (`name` in warnings): `None` when there is none, or
    /// when it cannot be read (logged; the rest waits for the next round).
    fn next_sample<M: DeserializeOwned + 'static>(
        &self,
        sub: &Subscription<M>,
        name: &str,
    ) -> Option<M> {
        match sub.take() {
            Ok(sample) => sample.map(|(msg, _)| msg),
            Err(e) => {
                self.log(LogLevel::Warn, &format!("{name}: cannot read sample: {e}"));
                None
            }
        }
    }

    /// Counts the result of an input check and logs its (throttled) warning.
    fn counted(&mut self, result: Result<(), StateFault>) {
        if let Some(w) = count(&mut self.diag, self.throttle, result) {
            self.log(LogLevel::Warn, &w);
        }
    }

    /// Calls the provider for the current state and checks the plan; `Err` is the reason for
    /// not publishing (also counted in diagnostics).
    fn plan_now<P: PlanProvider + ?Sized>(&mut self, provider: &mut P) -> Result<(), String> {
        let state = match self.validator.current(self.now()) {
            Ok(s) => s,
            Err(fault) => return Err(format!("no valid state: {fault}")),
        };
        let stamp = state.stamp;
        self.apply_cmd_vel(provider);
        let Ok(state) = self.validator.current(self.now()) else {
            return Err("no valid state".into());
        };
        provider.on_state(state);
        let nj = self.config.params.joint_names.len();
        let nu = self.fallback.len();
        let result = match provider.plan(&mut self.plan) {
            Ok(()) => self
                .plan
                .check(nj, nu)
                .map_err(|d| format!("defective plan: {d}")),
            Err(e) => Err(format!("planning failed: {e}")),
        };
        if let Err(e) = &result {
            self.diag.record_plan_error(e);
            return result;
        }
        fill_trajectory(
            Arc::make_mut(&mut self.trajectory_msg),
            &self.plan,
            nj,
            stamp,
        );
        publish(&self.trajectory_pub, &self.trajectory_msg, &mut self.diag);
        self.diag.record_plan(&self.plan);
        self.publish_view(provider, stamp);
        Ok(())
    }

    /// `sim: true`: step the plant over the last period with the effort applied in it, then
    /// publish its state on `joint_states` and take it as the measured state.
    fn sim_tick(&mut self) {
        let Some(sim) = &mut self.sim else { return };
        let Some(robot) = &mut sim.robot else { return };
        if sim.started {
            if let Err(e) = robot.step(&sim.applied) {
                let text = format!("simulated plant: step failed: {e}");
                log_to(&self.node, &self.config, LogLevel::Warn, &text);
            }
        }
        sim.applied.iter_mut().for_each(|u| *u = 0.0);
        robot.write_state(&mut sim.state);
        sim.started = true;
        let now = Time::now(); // `sim: true` excludes `use_sim_time`
        let msg = Arc::make_mut(&mut sim.msg);
        msg.header.stamp = now;
        refill(&mut msg.position, &sim.state.position);
        refill(&mut msg.velocity, &sim.state.velocity);
        msg.effort.clear();
        let r = self.validator.accept_joint_state(msg, now);
        if let Some(w) = count(&mut self.diag, self.throttle, r) {
            log_to(&self.node, &self.config, LogLevel::Warn, &w);
        }
        publish(&sim.joint_pub, &sim.msg, &mut self.diag);
    }

    fn record_applied(&mut self) {
        if let Some(sim) = &mut self.sim {
            sim.applied.copy_from_slice(&self.effort_msg.data);
        }
    }

    /// Between plan ticks: the provider's command for the latest valid state, if it has one.
    /// Without a valid state nothing is sent (the next tick handles the fault).
    fn command_tick<P: PlanProvider + ?Sized>(&mut self, provider: &mut P) {
        if !self.enabled {
            return;
        }
        let Ok(state) = self.validator.current(self.now()) else {
            return;
        };
        if provider.track(state, &mut self.fallback) && self.fallback.iter().all(|u| u.is_finite())
        {
            let msg = Arc::make_mut(&mut self.effort_msg);
            refill(&mut msg.data, &self.fallback);
            publish(&self.effort_pub, &self.effort_msg, &mut self.diag);
            self.diag.tracking_commands += 1;
        }
    }

    fn tick<P: PlanProvider + ?Sized>(&mut self, provider: &mut P) {
        self.sim_tick();
        self.diag.ticks += 1;
        let fault = self.validator.current(self.now()).err();
        self.diag.set_state_ok(fault.is_none());
        if !self.enabled {
            return;
        }
        if let Some(fault) = fault {
            if let Some(w) = self
                .diag
                .record_no_state(&fault, Instant::now(), self.throttle)
            {
                self.log(LogLevel::Warn, &w);
            }
            if provider.fallback_effort(&fault, &mut self.fallback) {
                let msg = Arc::make_mut(&mut self.effort_msg);
                refill(&mut msg.data, &self.fallback);
                publish(&self.effort_pub, &self.effort_msg, &mut self.diag);
                self.diag.fallback_commands += 1;
                self.record_applied();
            }
            return;
        }
        let planned = self.plan_now(provider).is_ok();
        if !planned {
            if let Some(w) = self.diag.plan_error_warning(Instant::now(), self.throttle) {
                self.log(LogLevel::Warn, &w);
            }
        }
        if planned {
            let msg = Arc::make_mut(&mut self.effort_msg);
            refill(&mut msg.data, &self.plan.effort);
            publish(&self.effort_pub, &self.effort_msg, &mut self.diag);
            self.record_applied();
        } else if provider.failure_effort(&mut self.fallback)
            && self.fallback.iter().all(|u| u.is_finite())
        {
            let msg = Arc::make_mut(&mut self.effort_msg);
            refill(&mut msg.data, &self.fallback);
            publish(&self.effort_pub, &self.effort_msg, &mut self.diag);
            self.diag.fallback_commands += 1;
            self.record_applied();
        }
    }

    fn publish_diagnostics(&mut self, now: Instant) {
        let name = self.config.node_name.clone();
        let stamp = self.now();
        let mut msg = std::mem::take(Arc::make_mut(&mut self.diagnostics_msg));
        self.diag.fill(&mut msg, &name, stamp, now);
        self.fill_cmd_vel_status(&mut msg);
        *Arc::make_mut(&mut self.diagnostics_msg) = msg;
        publish(&self.diagnostics_pub, &self.diagnostics_msg, &mut self.diag);
    }
}

/// Counts an input result; returns the (throttled) warning to log for a rejection.
fn count(
    diag: &mut Diagnostics,
    throttle: StdDuration,
    result: Result<(), StateFault>,
) -> Option<String> {
    match result {
        Ok(()) => {
            diag.accepted += 1;
            None
        }
        Err(fault) => diag.record_rejection(&fault, Instant::now(), throttle),
    }
}

/// Logs to stderr (`[LEVEL] [stamp] [/node]: text`, like rclcpp's console output) and `/rosout`.
fn log_to(node: &Node, config: &NodeConfig, level: LogLevel, text: &str) {
    let tag = match level {
        LogLevel::Fatal => "FATAL",
        LogLevel::Error => "ERROR",
        LogLevel::Warn => "WARN",
        LogLevel::Info => "INFO",
        LogLevel::Debug => "DEBUG",
    };
    let now = Time::now();
    eprintln!(
        "[{tag}] [{}.{:09}] [{}]: {text}",
        now.sec,
        now.nanosec,
        config.fully_qualified_name()
    );
    node.rosout_raw(
        ros2_client::builtin_interfaces::Time::from_nanos(now.to_nanos()),
        level,
        &config.node_name,
        text,
        file!(),
        "NodeRuntime",
        line!(),
    );
}
