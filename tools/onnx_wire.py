"""The protobuf wire format of the few ONNX messages Tessera's tools read and write, by hand.

Python standard library only (numpy only for tensor_proto()), so tools/onnx_conformance.py runs
without python3-onnx and tools/torch_corpus.py needs nothing beyond python3-torch. Field numbers are
onnx.proto's: ModelProto.graph = 7; GraphProto node = 1, initializer = 5, input = 11, output = 12;
TensorProto dims = 1, data_type = 2, float_data = 4, int32_data = 5, int64_data = 7, name = 8,
raw_data = 9, double_data = 10, uint64_data = 11.
"""

import struct

def read_varint(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def parse(buf):
    """A message as a list of (field, wire type, value); value is an int or bytes."""
    fields, pos = [], 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        field, wt = key >> 3, key & 7
        if wt == 0:
            v, pos = read_varint(buf, pos)
        elif wt == 1:
            v, pos = buf[pos:pos + 8], pos + 8
        elif wt == 2:
            n, pos = read_varint(buf, pos)
            v, pos = buf[pos:pos + n], pos + n
        elif wt == 5:
            v, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("unsupported wire type %d" % wt)
        fields.append((field, wt, v))
    return fields


def varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def serialize(fields):
    out = bytearray()
    for field, wt, v in fields:
        out += varint(field << 3 | wt)
        if wt == 0:
            out += varint(v)
        elif wt == 2:
            out += varint(len(v)) + v
        else:
            out += v
    return bytes(out)


def get(fields, field):
    return [v for f, _, v in fields if f == field]


def first(fields, field, default=None):
    vals = get(fields, field)
    return vals[0] if vals else default


def ints(fields, field):
    """A repeated integer field, packed or not."""
    out = []
    for f, wt, v in fields:
        if f != field:
            continue
        if wt == 0:
            out.append(v)
        else:
            pos = 0
            while pos < len(v):
                x, pos = read_varint(v, pos)
                out.append(x)
    return out


def signed64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


# TensorProto.DataType
FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL = 1, 2, 3, 4, 5, 6, 7, 8, 9
FLOAT16, DOUBLE, UINT32, UINT64, COMPLEX64, COMPLEX128, BFLOAT16 = 10, 11, 12, 13, 14, 15, 16
TYPE_NAMES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
              8: "string", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64",
              14: "complex64", 15: "complex128", 16: "bfloat16"}
INTEGER_TYPES = {UINT8, INT8, UINT16, INT16, INT32, INT64, BOOL, UINT32, UINT64}
FLOAT_TYPES = {FLOAT, FLOAT16, DOUBLE, BFLOAT16}
RAW_FORMAT = {FLOAT: "f", UINT8: "B", INT8: "b", UINT16: "H", INT16: "h", INT32: "i", INT64: "q",
              BOOL: "?", FLOAT16: "e", DOUBLE: "d", UINT32: "I", UINT64: "Q"}


def tensor_values(t):
    """(data type, dims, list of numbers) of a TensorProto's fields."""
    dt = first(t, 2, 0)
    dims = [signed64(d) for d in ints(t, 1)]
    n = 1
    for d in dims:
        n *= d
    raw = first(t, 9)
    if raw is not None:
        if dt == BFLOAT16:
            vals = [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                    for h in struct.unpack("<%dH" % (len(raw) // 2), raw)]
        elif dt in RAW_FORMAT:
            fmt = RAW_FORMAT[dt]
            vals = list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(fmt), fmt), raw))
        else:
            raise ValueError("element type %s" % TYPE_NAMES.get(dt, dt))
    elif dt == FLOAT:
        vals = []
        for f, wt, v in t:
            if f == 4:
                vals += struct.unpack("<%df" % (len(v) // 4), v) if wt == 2 else struct.unpack("<f", v)
    elif dt == DOUBLE:
        vals = []
        for f, wt, v in t:
            if f == 10:
                vals += struct.unpack("<%dd" % (len(v) // 8), v) if wt == 2 else struct.unpack("<d", v)
    elif dt == INT64:
        vals = [signed64(v) for v in ints(t, 7)]
    elif dt in (UINT32, UINT64):
        vals = ints(t, 11)
    elif dt in (FLOAT16, BFLOAT16):
        bits = ints(t, 5)
        if dt == FLOAT16:
            vals = [struct.unpack("<e", struct.pack("<H", b & 0xFFFF))[0] for b in bits]
        else:
            vals = [struct.unpack("<f", struct.pack("<I", (b & 0xFFFF) << 16))[0] for b in bits]
    elif dt in (INT32, INT16, INT8, UINT16, UINT8, BOOL):
        vals = [v - (1 << 64) if v >= 1 << 63 else v for v in ints(t, 5)]
        vals = [bool(v) if dt == BOOL else v for v in vals]
    else:
        raise ValueError("element type %s" % TYPE_NAMES.get(dt, dt))
    if len(vals) != n:
        raise ValueError("%d values for %d elements" % (len(vals), n))
    return dt, dims, vals


def tensor_proto(name, array):
    """TensorProto{dims=1, data_type=2 (FLOAT=1, DOUBLE=11), name=8, raw_data=9}; float64 arrays stay
    float64, anything else becomes float32."""
    import numpy as np

    double = np.asarray(array).dtype == np.float64
    a = np.ascontiguousarray(array, dtype="<f8" if double else "<f4")
    msg = bytearray()
    for d in a.shape:
        msg += varint(1 << 3) + varint(d)
    msg += varint(2 << 3) + varint(11 if double else 1)
    nb = name.encode()
    msg += varint((8 << 3) | 2) + varint(len(nb)) + nb
    raw = a.tobytes()
    msg += varint((9 << 3) | 2) + varint(len(raw)) + raw
    return bytes(msg)
