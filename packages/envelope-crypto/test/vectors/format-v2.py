"""Independent generator of the pinned version-2 wrapped-key vector in test/format.test.ts.

Uses Python's `cryptography` package (AESGCM) and hashlib, not node:crypto, and builds the
layout from the README's byte-format table by hand. Run: python3 test/vectors/format-v2.py
"""
import hashlib
import struct

from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def field(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


VERSION = b"\x02"
IV = bytes(range(0xA0, 0xAC))  # what the injected random source returns for n = 12

# wrapDataKey(masterKey, dataKey, "user-a"): the same inputs as the version-1 vector
master_key = bytes(range(32))
data_key = bytes([0x22]) * 32
key_id = hashlib.sha256(master_key).digest()[:8]
aad = (
    b"svc/envelope/data-key\x00"
    + VERSION
    + field("user-a".encode("utf-8"))
    + field(key_id.hex().encode("ascii"))
)
wrapped = VERSION + key_id + IV + AESGCM(master_key).encrypt(IV, data_key, aad)
print("key id   ", key_id.hex())
print("wrapped  ", wrapped.hex())
