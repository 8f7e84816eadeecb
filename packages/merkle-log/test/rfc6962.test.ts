/**
 * RFC 6962 / RFC 9162 §2.1 known-answer tests.
 *
 * Vectors: test/vectors/, copied unchanged from transparency-dev/merkle `testdata/inclusion` and
 * `testdata/consistency` at commit 417fb0c314750d94e53942e9f92e79b6d35915db (Apache-2.0; loaded
 * there by `proof/verify_test.go`), plus `tree-8.json` with the 8 leaves and roots of
 * `testonly/constants.go` (the same as google/certificate-transparency's merkle_tree_test.cc).
 * See test/vectors/README.md.
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CompactRange,
  consistencyProof,
  EMPTY_ROOT,
  fromHex,
  type Hash,
  hashLeaf,
  inclusionProof,
  MemoryNodeStore,
  ProofError,
  rootFromInclusionProof,
  rootFromLeafHashes,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from "../src/index.js";
import { ReferenceTree } from "./_reference.js";

const VECTORS = fileURLToPath(new URL("./vectors/", import.meta.url));

interface InclusionProbe {
  name: string;
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

interface ConsistencyProbe {
  name: string;
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

interface Tree8 {
  leafInputs: string[];
  rootsBySize: string[];
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? jsonFiles(join(dir, e.name))
        : e.name.endsWith(".json")
          ? [join(dir, e.name)]
          : [],
    )
    .sort();
}

function loadProbes<T>(kind: string): T[] {
  return jsonFiles(join(VECTORS, kind)).map(
    (path) => ({ ...JSON.parse(readFileSync(path, "utf8")), name: relative(VECTORS, path) }) as T,
  );
}

function b64(value: string | null | undefined): Uint8Array {
  return new Uint8Array(Buffer.from(value ?? "", "base64"));
}

function b64Proof(proof: string[] | null): Uint8Array[] {
  return (proof ?? []).map(b64);
}

const inclusionProbes = loadProbes<InclusionProbe>("inclusion");
const consistencyProbes = loadProbes<ConsistencyProbe>("consistency");
const tree8 = JSON.parse(readFileSync(join(VECTORS, "tree-8.json"), "utf8")) as Tree8;
const leafHashes8 = tree8.leafInputs.map((hex) => hashLeaf(fromHex(hex)));
const root8 = (size: number): Hash => fromHex(tree8.rootsBySize[size] as string);

describe("vector files", () => {
  it("hold the 98 inclusion and 98 consistency probes of the upstream testdata", () => {
    expect(inclusionProbes).toHaveLength(98);
    expect(consistencyProbes).toHaveLength(98);
    expect(inclusionProbes.filter((p) => !p.wantErr)).toHaveLength(6);
    expect(consistencyProbes.filter((p) => !p.wantErr)).toHaveLength(6);
  });
});

describe.each(inclusionProbes)("inclusion probe $name", (probe) => {
  const run = () =>
    verifyInclusion(
      probe.leafIdx,
      probe.treeSize,
      b64(probe.leafHash),
      b64Proof(probe.proof),
      b64(probe.root),
    );
  if (probe.wantErr) {
    it(`rejects: ${probe.desc}`, () => {
      expect(run).toThrow(ProofError);
    });
  } else {
    it(`verifies: ${probe.desc}`, () => {
      expect(run).not.toThrow();
      const root = rootFromInclusionProof(
        probe.leafIdx,
        probe.treeSize,
        b64(probe.leafHash),
        b64Proof(probe.proof),
      );
      expect(toHex(root)).toBe(toHex(b64(probe.root)));
    });
  }
});

describe.each(consistencyProbes)("consistency probe $name", (probe) => {
  const run = () =>
    verifyConsistency(
      probe.size1,
      probe.size2,
      b64Proof(probe.proof),
      b64(probe.root1),
      b64(probe.root2),
    );
  if (probe.wantErr) {
    it(`rejects: ${probe.desc}`, () => {
      expect(run).toThrow(ProofError);
    });
  } else {
    it(`verifies: ${probe.desc}`, () => {
      expect(run).not.toThrow();
    });
  }
});

describe("tree-8.json roots", () => {
  it("EMPTY_ROOT is SHA-256 of the empty string, the root at size 0", () => {
    expect(toHex(EMPTY_ROOT)).toBe(tree8.rootsBySize[0]);
    expect(toHex(rootFromLeafHashes([]))).toBe(tree8.rootsBySize[0]);
    expect(toHex(CompactRange.empty().root())).toBe(tree8.rootsBySize[0]);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    "size %i: rootFromLeafHashes and CompactRange.root match",
    (size) => {
      const range = CompactRange.empty();
      for (const leaf of leafHashes8.slice(0, size)) {
        range.append(leaf);
      }
      expect(toHex(rootFromLeafHashes(leafHashes8.slice(0, size)))).toBe(tree8.rootsBySize[size]);
      expect(toHex(range.root())).toBe(tree8.rootsBySize[size]);
    },
  );
});

describe("generated proofs over the 8 standard leaves", () => {
  const store = new MemoryNodeStore();
  const reference = new ReferenceTree(leafHashes8);
  beforeAll(() => {
    const range = CompactRange.empty();
    for (const leaf of leafHashes8) {
      store.put(range.append(leaf));
    }
  });

  it("equal the proofs of every happy-path probe over this tree", async () => {
    let compared = 0;
    for (const probe of inclusionProbes.filter((p) => !p.wantErr && p.treeSize <= 8)) {
      if (toHex(b64(probe.root)) !== toHex(root8(probe.treeSize))) {
        continue; // the single-entry probe uses another leaf
      }
      const ours = await inclusionProof(probe.leafIdx, probe.treeSize, store);
      expect(ours.map(toHex)).toEqual(b64Proof(probe.proof).map(toHex));
      compared += 1;
    }
    for (const probe of consistencyProbes.filter((p) => !p.wantErr && p.size2 <= 8)) {
      if (toHex(b64(probe.root2)) !== toHex(root8(probe.size2))) {
        continue; // the "additional" probes use placeholder roots
      }
      const ours = await consistencyProof(probe.size1, probe.size2, store);
      expect(ours.map(toHex)).toEqual(b64Proof(probe.proof).map(toHex));
      compared += 1;
    }
    expect(compared).toBe(10);
  });

  it("for every (index, size) within 8 leaves: equal RFC PATH and verify", async () => {
    for (let size = 1; size <= 8; size++) {
      for (let index = 0; index < size; index++) {
        const proof = await inclusionProof(index, size, store);
        expect(proof.map(toHex)).toEqual(reference.inclusionProof(index, size).map(toHex));
        expect(() =>
          verifyInclusion(index, size, leafHashes8[index] as Hash, proof, root8(size)),
        ).not.toThrow();
      }
    }
  });

  it("for every 0 < m <= n <= 8: equal RFC PROOF and verify", async () => {
    for (let n = 1; n <= 8; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = await consistencyProof(m, n, store);
        expect(proof.map(toHex)).toEqual(reference.consistencyProof(m, n).map(toHex));
        expect(() => verifyConsistency(m, n, proof, root8(m), root8(n))).not.toThrow();
      }
    }
  });
});
