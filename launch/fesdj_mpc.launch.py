"""Launch the fesdj_mpc node (FESD-J MPC).

ros2 launch fesdj_mpc fesdj_mpc.launch.py [config_file:=FILE.yaml]
    [robot_description_path:=ROBOT.urdf] [sim:=true|false] [params_file:=PARAMS.yaml]
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
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
    return LaunchDescription(args + [node])
