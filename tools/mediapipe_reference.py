"""MediaPipe's own preprocessing, for the golden scripts that run in the MediaPipe venv (tools/setup.sh --mediapipe).

Python's cv2.warpPerspective is not a substitute: OpenCV 5 rounds sample positions differently and disagrees with
MediaPipe on ~4% of the values. So the tensors come from MediaPipe's CPU ImageToTensorCalculator itself, run in a
CalculatorGraph and read back through TensorsToFloatsCalculator.
"""
import numpy as np

import mediapipe as mp
from mediapipe.framework.formats import rect_pb2
from mediapipe.python import packet_creator, packet_getter


def image_to_tensor(rgb, width, height, roi=None, value_range=(0, 255)):
    """The tensor MediaPipe makes from `rgb` (stretched, no aspect ratio kept), as float values in `value_range`.
    `roi` is a normalized (x, y, width, height) region."""
    config = f"""
input_stream: "image"
input_stream: "rect"
output_stream: "floats"
node {{ calculator: "ImageToTensorCalculator" input_stream: "IMAGE:image" input_stream: "NORM_RECT:rect"
  output_stream: "TENSORS:tensors"
  options {{ [mediapipe.ImageToTensorCalculatorOptions.ext] {{ output_tensor_width: {width}
    output_tensor_height: {height} output_tensor_float_range {{ min: {value_range[0]} max: {value_range[1]} }} }} }} }}
node {{ calculator: "TensorsToFloatsCalculator" input_stream: "TENSORS:tensors" output_stream: "FLOATS:floats" }}
"""
    graph = mp.CalculatorGraph(graph_config=config)
    out = []
    graph.observe_output_stream("floats", lambda stream, packet: out.append(np.array(packet_getter.get_float_list(packet), dtype=np.float32)))
    graph.start_run()
    x, y, w, h = roi or (0.0, 0.0, 1.0, 1.0)
    rect = rect_pb2.NormalizedRect(x_center=x + w / 2, y_center=y + h / 2, width=w, height=h)
    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb))
    graph.add_packet_to_input_stream("image", packet_creator.create_image(image).at(0))
    graph.add_packet_to_input_stream("rect", packet_creator.create_proto(rect).at(0))
    graph.close()
    return out[0].reshape(height, width, 3)


def image_to_uint8(rgb, width, height, roi=None):
    """The same with the float range [0, 255], whose values are exactly the resampled pixels."""
    values = image_to_tensor(rgb, width, height, roi)
    assert np.array_equal(values, np.round(values)), "MediaPipe's resampled values are not integers"
    return values.astype(np.uint8)
