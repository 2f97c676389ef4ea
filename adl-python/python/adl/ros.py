"""Robot logs as Python sensors, read by adl's Rust reader with the GIL
released: a ROS 2 bag (a rosbag2 folder, MCAP or SQLite storage), a
standalone ``.mcap`` file or a ROS 1 ``.bag``.

- ``Bag(path)``: reads the bag's indexes, not its messages; ``bag.topics``
  is ``{topic: message type}`` (``sensor_msgs/msg/Imu``; a ROS 1 bag's
  ``sensor_msgs/Imu``), ``bag[topic]`` one topic as a sensor (a
  ``KeyError`` naming the bag's topics where it has no such topic),
  ``bag.damage`` where a damaged bag was cut (the messages before the
  damage are kept).
- ``Topic``: a sensor (``name``, ``metadata.timestamps``, the log times in
  seconds, ``__getitem__``, ``__len__``, ``stream``) whose sample is its
  message as plain data: a dict keyed by field name, numbers as Python
  scalars, numeric arrays (fixed or variable in length) as 1-D NumPy
  arrays of the field's type (``uint8[]`` as ``uint8``, ``bool[]`` as
  ``bool``), strings as ``str``, nested messages as dicts, arrays of
  messages as lists of dicts; a ROS 1 ``time`` is ``{"secs", "nsecs"}``,
  a ROS 2 one ``{"sec", "nanosec"}``. ``log_times_ns`` gives the log times
  exactly (uint64), ``message_type`` the type, and ``stamped_by_header()``
  the same topic timed by its messages' ``header.stamp``.
- ``topic.view(kind)`` (a ``View``): the same topic, timed the same, as a
  sensor of typed samples, each read and decoded without the GIL:

  - ``"image"``: a ``sensor_msgs/Image`` of 8-bit encoding (rgb8, bgr8,
    rgba8, bgra8, mono8, 8UCn; BGR reordered to RGB) or a JPEG or PNG
    ``CompressedImage`` as a uint8 ``[H, W, C]`` array;
  - ``"image16"``: a 16-bit ``Image`` (mono16, 16UCn) as uint16
    ``[H, W, C]``; ``"depth"``: a 32FCn ``Image`` as float32 ``[H, W, C]``;
  - ``"points"``: a ``PointCloud2`` as float32 ``[N, C]``, a column per
    field value (``topic.point_columns`` names them);
  - ``"imu"``: ``{"orientation": [x, y, z, w], "angular_velocity": [3],
    "linear_acceleration": [3]}`` (float64 arrays);
  - ``"fix"`` (``NavSatFix``): ``{"latitude", "longitude", "altitude"}``
    floats and ``"status"`` an int;
  - ``"scan"`` (``LaserScan``): ``{"ranges", "intensities"}`` float32
    arrays and ``{"angle_min", "angle_increment"}`` floats;
  - ``"pose"`` (``Pose``, ``PoseStamped``, ``PoseWithCovarianceStamped``,
    ``TransformStamped``, ``Odometry``, a ``TFMessage`` of one transform):
    ``{"position": [x, y, z], "orientation": [x, y, z, w]}`` (float64).

  Orientations are normalized (an all-zero one, an IMU without an
  estimate, is ``[0, 0, 0, 1]``). An unknown kind is a ``ValueError``
  listing the kinds; a kind that does not read the topic's message type a
  ``ValueError`` naming the topic and its type; a message the view cannot
  read (an image encoding of another kind) an ``OSError`` naming the
  topic and the message.

A path that is not there is a ``FileNotFoundError``, a file that is not a
bag (or is damaged before any message) an ``OSError`` naming it; a message
index out of range an ``IndexError``. The topics go in an ``adl.Trace``
like any other sensor::

    bag = adl.ros.Bag("drive.mcap")
    trace = adl.Trace({"imu": bag["/imu"], "gps": bag["/gps"]},
                      sync=adl.generic.Nearest("imu", tol=0.1))
"""

from adl._native import Bag
from adl._native import RosTopic as Topic
from adl._native import RosView as View

__all__ = ["Bag", "Topic", "View"]
