"""Independent generator of the pinned version-1 format vectors in test/format.test.ts.

Uses Python's `cryptography` package (AESGCM), not node:crypto, and builds the layout from
the README's byte-format table by hand. Run: python3 test/vectors/format-v1.py
"""
import struct

from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def field(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">I", len(data)) + data


VERSION = b"\x01"
IV = bytes(range(0xA0, 0xAC))  # what the injected random source returns for n = 12

# wrapDataKey(masterKey, dataKey, "user-a")
master_key = bytes(range(32))
data_key = bytes([0x22]) * 32
aad = b"svc/envelope/data-key\x00" + VERSION + field("user-a")
wrapped = VERSION + IV + AESGCM(master_key).encrypt(IV, data_key, aad)
print("wrapped  ", wrapped.hex())

# encryptBody(dataKey, "hello, memory", { userId: "user-a", memoryId: "memory-é" })
body_key = bytes([0x33]) * 32
aad = b"svc/envelope/body\x00" + VERSION + field("user-a") + field("memory-\u00e9")
sealed = VERSION + AESGCM(body_key).encrypt(IV, "hello, memory".encode("utf-8"), aad)
print("iv       ", IV.hex())
print("ciphertext", sealed.hex())
