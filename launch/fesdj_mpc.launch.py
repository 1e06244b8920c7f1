"""Launch the fesdj_mpc node (FESD-J MPC).

ros2 launch fesdj_mpc fesdj_mpc.launch.py [config_file:=FILE.yaml]
    [robot_description_path:=ROBOT.urdf] [sim:=true|false] [params_file:=PARAMS.yaml]
    [rviz:=true] [rviz_config:=FILE.rviz]

rviz:=true also starts rviz2 with config/rviz/fesdj.rviz (the planned base path and the planned
contacts and forces) when rviz2 is installed; without it a message says so and the node runs
alone.
"""

import os

from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, LogInfo, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue


def generate_launch_description():
    share = get_package_share_directory("fesdj_mpc")
    args = [
        DeclareLaunchArgument(
            "params_file",
            default_value=os.path.join(share, "config", "fesdj_mpc.params.yaml"),
            description="ROS params file of the node",
        ),
        DeclareLaunchArgument("config_file", default_value="", description="FESD-J problem file (empty: embedded demo)"),
        DeclareLaunchArgument("robot_description_path", default_value="", description="URDF replacing the problem file's"),
        DeclareLaunchArgument("sim", default_value="true", description="FESD-J simulator as plant inside the node"),
        DeclareLaunchArgument("start_enabled", default_value="true", description="publish commands from the start"),
        DeclareLaunchArgument("rviz", default_value="false", description="also start rviz2 (when installed)"),
        DeclareLaunchArgument(
            "rviz_config",
            default_value=os.path.join(share, "config", "rviz", "fesdj.rviz"),
            description="RViz2 config file",
        ),
    ]
    node = Node(
        package="fesdj_mpc",
        executable="fesdj_node",
        name="fesdj_mpc",
        output="screen",
        parameters=[
            LaunchConfiguration("params_file"),
            {
                "config_file": ParameterValue(LaunchConfiguration("config_file"), value_type=str),
                "robot_description_path": ParameterValue(
                    LaunchConfiguration("robot_description_path"), value_type=str
                ),
                "sim": ParameterValue(LaunchConfiguration("sim"), value_type=bool),
                "start_enabled": ParameterValue(LaunchConfiguration("start_enabled"), value_type=bool),
            },
        ],
    )
    return LaunchDescription(args + [node, OpaqueFunction(function=rviz)])


def rviz(context):
    """rviz2 with `rviz_config` when `rviz` is true and rviz2 is installed."""
    if LaunchConfiguration("rviz").perform(context).strip().lower() not in ("true", "1", "yes"):
        return []
    try:
        get_package_share_directory("rviz2")
    except PackageNotFoundError:
        return [LogInfo(msg="rviz:=true but rviz2 is not installed (apt install ros-$ROS_DISTRO-rviz2)")]
    return [
        Node(
            package="rviz2",
            executable="rviz2",
            name="rviz2",
            output="screen",
            arguments=["-d", LaunchConfiguration("rviz_config").perform(context)],
        )
    ]
