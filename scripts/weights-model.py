#!/usr/bin/python3
"""Writes an ONNX model with large weights, without the onnx package (the
protobuf encoded by hand): y = (x W1 + b) W2 with x [ROWS, N] and
W1, W2 [N, N] random float32 initializers (N*N*4 bytes each). The demo
(scripts/demo.sh) runs it to show file-backed weights.

  weights-model.py OUT.onnx [N [ROWS]]
"""

import sys

import numpy as np


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, payload):
    """A length-delimited field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def integer(number, value):
    return varint(number << 3) + varint(value)


def text(number, value):
    return field(number, value.encode())


def tensor(name, array):
    dims = b"".join(integer(1, d) for d in array.shape)
    return dims + integer(2, 1) + text(8, name) + field(9, array.tobytes())


def value_info(name, shape):
    dims = b"".join(field(1, integer(1, d)) for d in shape)
    tensor_type = integer(1, 1) + field(2, dims)
    return text(1, name) + field(2, field(1, tensor_type))


def node(op, inputs, output):
    return (b"".join(text(1, i) for i in inputs) + text(2, output) +
            text(4, op))


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    rng = np.random.default_rng(3)
    w1 = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    w2 = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    b = (rng.standard_normal(n) * 0.1).astype(np.float32)
    graph = (field(1, node("MatMul", ["x", "w1"], "h")) +
             field(1, node("Add", ["h", "b"], "hb")) +
             field(1, node("MatMul", ["hb", "w2"], "y")) +
             text(2, "weights") +
             field(5, tensor("w1", w1)) + field(5, tensor("b", b)) +
             field(5, tensor("w2", w2)) +
             field(11, value_info("x", [rows, n])) +
             field(12, value_info("y", [rows, n])))
    model = integer(1, 8) + field(8, integer(2, 17)) + field(7, graph)
    with open(out, "wb") as f:
        f.write(model)


if __name__ == "__main__":
    main()
