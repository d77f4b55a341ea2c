// @ts-check
// `prepack`: writes versions.json — the ranges a generated project depends
// on, read from the repository's manifests (lib/versions.mjs) — so the
// published command needs no repository. `--remove` (`postpack`) deletes it
// again, so a checkout always reads the manifests as they are now.
// Prints nothing: `npm pack --json` shares its standard output.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_DIR, repositoryVersions, VERSIONS_FILE } from "../lib/versions.mjs";

if (process.argv.includes("--remove")) rmSync(VERSIONS_FILE, { force: true });
else writeFileSync(VERSIONS_FILE, `${JSON.stringify(repositoryVersions(join(PACKAGE_DIR, "..", "..")), null, 2)}\n`);
