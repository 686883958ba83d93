#!/usr/bin/env python3
"""Reads a TensorBoard event file the way TensorBoard does, independently of Towerbench's C++.

    read_events.py EVENTS_FILE

Checks the TFRecord framing (both masked CRC-32Cs of every record, with its own CRC-32C),
decodes every record as a tensorboard.Event with python protobuf and prints one JSON line per
file_version event and per Summary.Value:

    {"step": 0, "wall_time": ..., "file_version": "brain.Event:2"}
    {"step": 3, "wall_time": ..., "tag": "loss", "value": 3.33}
    {"step": 3, "wall_time": ..., "tag": "sample", "image": {"height", "width", "colorspace",
     "png": {"height", "width", "channels", "pixels": [...]}}}

PNG images are decoded with zlib (8-bit, filter type 0 only, which is what the writer uses).
The message types are built here from TensorFlow's field numbers rather than generated from
engine/monitors/tensorboard/event.proto, so a wrong number in that file is caught. Exits with
status 1 and a message naming the file and offset on any malformed input.
"""

import json
import struct
import sys
import zlib

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError


def _crc32c_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


class FormatError(Exception):
    pass


def read_records(path):
    """Yields (offset, payload) for every TFRecord of the file."""
    with open(path, "rb") as f:
        data = f.read()
    offset = 0
    while offset < len(data):
        if len(data) - offset < 12:
            raise FormatError(f"{path}: truncated record header at offset {offset}")
        header = data[offset:offset + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[offset + 8:offset + 12])
        if masked_crc32c(header) != length_crc:
            raise FormatError(f"{path}: length CRC mismatch at offset {offset}")
        start = offset + 12
        end = start + length
        if end + 4 > len(data):
            raise FormatError(f"{path}: truncated record data at offset {offset}")
        payload = data[start:end]
        (data_crc,) = struct.unpack("<I", data[end:end + 4])
        if masked_crc32c(payload) != data_crc:
            raise FormatError(f"{path}: data CRC mismatch at offset {offset}")
        yield offset, payload
        offset = end + 4


def event_class():
    """tensorboard.Event with TensorFlow's field numbers (core/util/event.proto and
    core/framework/summary.proto), built with the descriptor API so no protoc is needed."""
    F = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name="towerbench_read_events.proto", package="tensorboard", syntax="proto3")

    def field(message, name, number, kind, type_name=None, repeated=False, oneof=None):
        f = message.field.add(name=name, number=number, type=kind,
                              label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
        if type_name:
            f.type_name = type_name
        if oneof is not None:
            f.oneof_index = oneof

    summary = file.message_type.add(name="Summary")
    image = summary.nested_type.add(name="Image")
    field(image, "height", 1, F.TYPE_INT32)
    field(image, "width", 2, F.TYPE_INT32)
    field(image, "colorspace", 3, F.TYPE_INT32)
    field(image, "encoded_image_string", 4, F.TYPE_BYTES)
    value = summary.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    field(value, "tag", 1, F.TYPE_STRING)
    field(value, "simple_value", 2, F.TYPE_FLOAT, oneof=0)
    field(value, "image", 4, F.TYPE_MESSAGE, ".tensorboard.Summary.Image", oneof=0)
    field(summary, "value", 1, F.TYPE_MESSAGE, ".tensorboard.Summary.Value", repeated=True)

    event = file.message_type.add(name="Event")
    event.oneof_decl.add(name="what")
    field(event, "wall_time", 1, F.TYPE_DOUBLE)
    field(event, "step", 2, F.TYPE_INT64)
    field(event, "file_version", 3, F.TYPE_STRING, oneof=0)
    field(event, "summary", 5, F.TYPE_MESSAGE, ".tensorboard.Summary", oneof=0)

    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    descriptor = pool.FindMessageTypeByName("tensorboard.Event")
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.22
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)


def decode_png(png, where):
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise FormatError(f"{where}: not a PNG signature")
    chunks = []
    pos = 8
    while pos < len(png):
        if pos + 12 > len(png):
            raise FormatError(f"{where}: truncated PNG chunk at byte {pos}")
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind = png[pos + 4:pos + 8]
        body = png[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise FormatError(f"{where}: PNG chunk {kind!r} CRC mismatch")
        chunks.append((kind, body))
        pos += 12 + length
    kinds = [kind for kind, _ in chunks]
    if not kinds or kinds[0] != b"IHDR" or kinds[-1] != b"IEND":
        raise FormatError(f"{where}: PNG chunks {kinds} do not start with IHDR and end with IEND")
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(
        ">IIBBBBB", chunks[0][1])
    channels = {0: 1, 2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or compression or filtering or interlace:
        raise FormatError(f"{where}: unsupported PNG header {chunks[0][1].hex()}")
    try:
        raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    except zlib.error as e:
        raise FormatError(f"{where}: PNG data does not inflate: {e}")
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise FormatError(f"{where}: PNG data has {len(raw)} bytes, expected {height * (stride + 1)}")
    pixels = bytearray()
    for y in range(height):
        row = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        if row[0] != 0:
            raise FormatError(f"{where}: PNG row {y} uses filter type {row[0]}")
        pixels += row[1:]
    return {"height": height, "width": width, "channels": channels, "pixels": list(pixels)}


def main(argv):
    if len(argv) != 2:
        print("usage: read_events.py EVENTS_FILE", file=sys.stderr)
        return 2
    path = argv[1]
    Event = event_class()
    try:
        for offset, payload in read_records(path):
            event = Event()
            try:
                event.ParseFromString(payload)
            except DecodeError as e:
                raise FormatError(f"{path}: record at offset {offset} is not an Event: {e}")
            head = {"step": event.step, "wall_time": event.wall_time}
            what = event.WhichOneof("what")
            if what == "file_version":
                print(json.dumps({**head, "file_version": event.file_version}))
                continue
            if what != "summary":
                raise FormatError(f"{path}: event at offset {offset} has neither "
                                  "file_version nor summary")
            for value in event.summary.value:
                line = {**head, "tag": value.tag}
                kind = value.WhichOneof("value")
                if kind == "simple_value":
                    line["value"] = value.simple_value
                elif kind == "image":
                    image = value.image
                    line["image"] = {
                        "height": image.height, "width": image.width,
                        "colorspace": image.colorspace,
                        "png": decode_png(image.encoded_image_string,
                                          f"{path}: image {value.tag!r} at offset {offset}")}
                else:
                    raise FormatError(f"{path}: value {value.tag!r} at offset {offset} is "
                                      "neither a scalar nor an image")
                print(json.dumps(line))
    except (FormatError, OSError) as e:
        print(f"read_events.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
