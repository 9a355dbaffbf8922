#!/usr/bin/env node
// Compiles proto/**/*.proto into TypeScript under src/gen/ with ts-proto.
//
// src/gen/ is generated output: gitignored, deleted and rewritten on every
// run, never edited by hand. Hand-written helpers live beside it in src/.
//
// Usage: node scripts/build-proto.js   (npm run build:proto)
// Exits non-zero with a message naming the failing step on any error.

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const protoDir = join(root, "proto");
const outDir = join(root, "src", "gen");
const require = createRequire(join(root, "package.json"));

// ts-proto options, each with its reason.
const TS_PROTO_OPTS = [
  // Emit grpc-js service definitions (path, serialize, deserialize) so a
  // @grpc/grpc-js Server can add them directly.
  "outputServices=grpc-js",
  // bytes fields as plain Uint8Array (a Buffer is one too). With env=node
  // ts-proto decodes bytes as Buffer.from(subarray), a copy of every chunk;
  // with env=both decoding returns a view into the input: zero copy, valid as
  // long as the input buffer is (grpc-js hands each message its own Buffer).
  "env=both",
  // int64/uint64 as bigint: exact (timestamps, hashes, shard indexes); no
  // dependency on the `long` package.
  "forceLong=bigint",
  // Default-import interop for ESM + CommonJS dependencies.
  "esModuleInterop=true",
  // Relative imports end in .js, as NodeNext resolution and Node ESM require.
  "importSuffix=.js",
  // Message fields are optional (`series?: Series`); scalars always present
  // with their proto3 default. Unset sub-messages stay undefined instead of
  // being allocated, which is both cheaper and faithful to the wire.
  "useOptionals=messages",
  // Oneofs as `{ $case: "series"; value: Series }`: type-safe, and the same
  // `value` property for every case keeps the encode switch simple.
  "oneof=unions-value",
  // Binary only: we never speak proto JSON, and fromJSON/toJSON would double
  // the generated code.
  "outputJsonMethods=false",
  // No UNRECOGNIZED = -1 member: enums hold exactly the wire values; an
  // unknown number decodes as that number.
  "unrecognizedEnum=false",
  // create()/fromPartial() make tests and call sites short.
  "outputPartialMethods=true",
  // Keep the DeepPartial/Exact/MessageFns helpers file-local, so no two
  // generated files export the same name.
  "exportCommonSymbols=false",
];

/** Stops the build with a clear message and a non-zero exit code. */
function fail(step, detail) {
  console.error(`build-proto: ${step} failed${detail ? `: ${detail}` : ""}`);
  process.exit(1);
}

/** Resolves a file inside an installed package, whatever its exports say. */
function packageDir(name) {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    fail(`resolving package "${name}"`, "is it installed? run `npm install`");
  }
}

/** Lists the .proto files under dir, relative to dir, sorted. */
function listProtos(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(".proto")) {
      found.push(relative(dir, join(entry.parentPath ?? entry.path, entry.name)));
    }
  }
  return found.sort();
}

const protocPkg = packageDir("protoc");
// The npm package's launcher picks the binary for this platform and arch.
const protocBin = join(protocPkg, require(join(protocPkg, "package.json")).bin.protoc);
const protocInclude = join(protocPkg, "include");
const tsProtoPkg = packageDir("ts-proto");
const tsProtoPlugin = join(tsProtoPkg, require(join(tsProtoPkg, "package.json")).bin["protoc-gen-ts_proto"]);

for (const [what, path] of [
  ["protoc launcher", protocBin],
  ["protoc include dir", join(protocInclude, "google", "protobuf", "any.proto")],
  ["ts-proto plugin", tsProtoPlugin],
  ["proto dir", protoDir],
]) {
  if (!existsSync(path)) fail(`finding the ${what}`, `${path} does not exist`);
}

const protos = listProtos(protoDir);
if (protos.length === 0) fail("finding .proto files", `none under ${protoDir}`);

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

const args = [
  protocBin,
  `--plugin=protoc-gen-ts_proto=${tsProtoPlugin}`,
  `--ts_proto_out=${outDir}`,
  `--ts_proto_opt=${TS_PROTO_OPTS.join(",")}`,
  `--proto_path=${protoDir}`,
  `--proto_path=${protocInclude}`,
  ...protos,
];
// Run the launcher with this Node, so neither its shebang nor the exec bit
// matters (fresh clones on any OS).
const run = spawnSync(process.execPath, args, { cwd: protoDir, stdio: "inherit" });
if (run.error) fail("running protoc", run.error.message);
if (run.status !== 0) {
  rmSync(outDir, { recursive: true, force: true });
  fail("protoc", `exit code ${run.status ?? `signal ${run.signal}`}; see the messages above`);
}

console.log(`build-proto: ${protos.length} files -> ${relative(root, outDir)}/`);
