// @ts-check
// npx vitest run --project site scripts/check-workflows.test.mjs — the repository's workflows
// keep the rules of check-workflows.mjs, and the checks catch broken ones.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "vitest";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { checkDependabot, checkPinning, checkRepository, checkWorkflow } from "./check-workflows.mjs";

/** @typedef {{ jobs: Record<string, { strategy?: any, steps: Array<Record<string, any>> }> }} Workflow */

const root = fileURLToPath(new URL("..", import.meta.url));
const SHA = "0123456789abcdef0123456789abcdef01234567";

const good = `
name: ok
on: [push]
permissions: {}
jobs:
  build:
    runs-on: ubuntu-24.04
    timeout-minutes: 5
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@${SHA} # v4.2.2
        with:
          persist-credentials: false
      - run: npm test
`;

test("the repository's workflows and dependabot.yml keep the rules", () => {
  assert.deepEqual(checkRepository(join(root, ".github")), []);
});

test("a well-formed workflow passes", () => {
  assert.deepEqual(checkWorkflow("x.yml", good), []);
});

test("an action pinned by tag, branch or short SHA fails; a full SHA needs its tag comment", () => {
  assert.match(checkPinning("      - uses: someone/action@v1\n").join(), /not pinned/);
  assert.match(checkPinning("      - uses: someone/action@main\n").join(), /not pinned/);
  assert.match(checkPinning("      - uses: someone/action@0123456\n").join(), /not pinned/);
  assert.match(checkPinning(`      - uses: someone/action@${SHA}\n`).join(), /add the tag/);
  assert.deepEqual(checkPinning(`      - uses: someone/action@${SHA} # v1.0.0\n`), []);
  assert.deepEqual(checkPinning("      - uses: ./local-action\n"), []);
});

test("GitHub's own actions need a full SHA too: a tag can be moved to other code", () => {
  assert.match(checkPinning("  - uses: actions/checkout@v4\n").join(), /line 1: `actions\/checkout@v4` is not pinned/);
  assert.match(checkPinning("  - uses: actions/setup-node@v4.4.0\n").join(), /not pinned/);
  assert.match(checkPinning("  - uses: actions/checkout@main\n").join(), /not pinned/);
  assert.deepEqual(checkPinning(`  - uses: actions/checkout@${SHA} # v4.4.0\n`), []);
});

test("a missing or writing default permission fails", () => {
  assert.match(checkWorkflow("x.yml", good.replace("permissions: {}\n", "")).join(), /no top-level `permissions`/);
  assert.match(
    checkWorkflow("x.yml", good.replace("permissions: {}", "permissions: write-all")).join(),
    /list each scope/
  );
  assert.match(
    checkWorkflow("x.yml", good.replace("permissions: {}", "permissions:\n  contents: write")).join(),
    /contents: write is not needed/
  );
});

test("a job without its own permissions, or with a write it does not need, fails", () => {
  const noJobPermissions = good.replace("    permissions:\n      contents: read\n", "");
  assert.match(checkWorkflow("x.yml", noJobPermissions).join(), /jobs\.build: no `permissions`/);
  const pages = good.replace("contents: read", "pages: write\n      id-token: write");
  assert.match(checkWorkflow("x.yml", pages).join(), /pages: write is not needed/);
  // The same grants are what the Pages deploy job needs, in its environment.
  const deploy = pages
    .replace("  build:", "  deploy:")
    .replace("    steps:", "    environment: github-pages\n    steps:");
  assert.deepEqual(checkWorkflow("pages.yml", deploy), []);
});

test("event data pasted into a script, pull_request_target and a lingering checkout token fail", () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow expression is the text under test, not a template.
  const injected = good.replace("run: npm test", 'run: echo "${{ github.event.pull_request.title }}"');
  assert.match(checkWorkflow("x.yml", injected).join(), /through `env:`/);
  assert.match(checkWorkflow("x.yml", good.replace("on: [push]", "on: [pull_request_target]")).join(), /untrusted/);
  const token = good.replace("        with:\n          persist-credentials: false\n", "");
  assert.match(checkWorkflow("x.yml", token).join(), /persist-credentials/);
});

test("jobs need runs-on, a timeout and existing needs; YAML errors are reported", () => {
  assert.match(checkWorkflow("x.yml", good.replace("    timeout-minutes: 5\n", "")).join(), /timeout-minutes/);
  assert.match(checkWorkflow("x.yml", good.replace("    runs-on: ubuntu-24.04\n", "")).join(), /runs-on/);
  assert.match(
    checkWorkflow("x.yml", good.replace("    runs-on:", "    needs: nothing\n    runs-on:")).join(),
    /needs `nothing`/
  );
  assert.match(checkWorkflow("x.yml", "on: [push\njobs: {}").join(), /YAML/);
});

test("dependabot.yml must cover npm and github-actions", () => {
  assert.match(
    checkDependabot(
      "version: 2\nupdates:\n  - package-ecosystem: npm\n    directory: /\n    schedule: {interval: weekly}\n"
    ).join(),
    /github-actions/
  );
});

// biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow expression is the text under test, not a template.
const TOKEN = "${{ secrets.NPM_TOKEN }}";

test("a secret in the workflow's or a job's env fails: every step, install scripts included, would see it", () => {
  const workflowEnv = good.replace("permissions: {}\n", `permissions: {}\nenv:\n  NODE_AUTH_TOKEN: ${TOKEN}\n`);
  assert.match(checkWorkflow("x.yml", workflowEnv).join(), /env: NODE_AUTH_TOKEN reads a secret .* every job/);
  const jobEnv = good.replace("    steps:", `    env:\n      NODE_AUTH_TOKEN: ${TOKEN}\n    steps:`);
  assert.match(checkWorkflow("x.yml", jobEnv).join(), /jobs\.build\.env: NODE_AUTH_TOKEN reads a secret/);
  // A job-level variable that reads no secret is fine.
  assert.deepEqual(checkWorkflow("x.yml", good.replace("    steps:", "    env:\n      CI: true\n    steps:")), []);
});

test("every spelling that reads a secret counts: index, whole context, inside a function", () => {
  // JSON strings are YAML strings: the expressions' quotes need no escaping by hand.
  const envWith = (/** @type {string} */ name, /** @type {string} */ value) =>
    good.replace("    steps:", `    env:\n      ${name}: ${JSON.stringify(value)}\n    steps:`);
  for (const read of [
    "secrets['NPM_TOKEN']",
    'secrets["NPM_TOKEN"]',
    "toJSON(secrets)",
    "format('{0}', secrets.NPM_TOKEN)",
    "secrets.NPM_TOKEN || 'none'",
    "fromJSON(toJSON(secrets)).NPM_TOKEN",
  ]) {
    const expression = `\${{ ${read} }}`;
    assert.match(
      checkWorkflow("x.yml", envWith("NODE_AUTH_TOKEN", expression)).join(),
      /jobs\.build\.env: NODE_AUTH_TOKEN reads a secret/,
      read
    );
    const workflowEnv = good.replace(
      "permissions: {}\n",
      `permissions: {}\nenv:\n  ALL: ${JSON.stringify(expression)}\n`
    );
    assert.match(checkWorkflow("x.yml", workflowEnv).join(), /env: ALL reads a secret .* every job/, read);
    const pasted = good.replace("run: npm test", `run: ${JSON.stringify(`echo ${expression}`)}`);
    assert.match(checkWorkflow("x.yml", pasted).join(), /secret pasted into a script/, read);
  }
  // A name that only begins with the word, or the word after the expression, reads no secret.
  for (const value of [`\${{ env.secrets_file }}`, `\${{ github.sha }} secrets`])
    assert.deepEqual(checkWorkflow("x.yml", envWith("X", value)), [], value);
});

test("a secret in the env of the one step that uses it passes; pasted into the script, or beside an install, fails", () => {
  const publish = (/** @type {string} */ run) =>
    good
      .replace(
        "      - run: npm test\n",
        `      - name: Publish\n        env:\n          NODE_AUTH_TOKEN: ${TOKEN}\n        run: ${run}\n`
      )
      .replace("    steps:", "    environment: release\n    steps:");
  assert.deepEqual(checkWorkflow("x.yml", publish("npm publish x.tgz --provenance")), []);
  assert.match(
    checkWorkflow("x.yml", publish("npm ci && npm publish")).join(),
    /installs packages while NODE_AUTH_TOKEN/
  );
  assert.match(checkWorkflow("x.yml", publish("npx some-tool")).join(), /installs packages/);
  const pasted = good.replace("run: npm test", `run: npm publish --token ${TOKEN}`);
  assert.match(checkWorkflow("x.yml", pasted).join(), /secret pasted into a script/);
});

test("a reusable workflow called with `secrets: inherit` fails", () => {
  const inherit = `
name: ok
on: [push]
permissions: {}
jobs:
  call:
    permissions:
      contents: read
    uses: ./.github/workflows/other.yml
    secrets: inherit
`;
  assert.match(checkWorkflow("x.yml", inherit).join(), /secrets: inherit/);
});

test("the release workflow gives NPM_TOKEN to its publish step only, in a job that installs and builds nothing", () => {
  const release = /** @type {Workflow} */ (parse(readFileSync(join(root, ".github/workflows/release.yml"), "utf8")));
  const holders = [];
  for (const [id, job] of Object.entries(release.jobs))
    for (const step of job.steps) if (/\bsecrets\b/.test(JSON.stringify(step))) holders.push(`${id}: ${step.name}`);
  assert.deepEqual(holders, ["publish: Publish"]);
  const publishRuns = release.jobs.publish.steps.map((s) => s.run ?? "").join("\n");
  assert.doesNotMatch(publishRuns, /npm (ci|install|run)|node scripts/);
  assert.ok(!release.jobs.publish.steps.some((s) => String(s.uses).startsWith("actions/checkout")));
});

test("CI tests on every supported Node.js line: 20 (the oldest `engines` accepts), 22 and 24", () => {
  const ci = /** @type {Workflow} */ (parse(readFileSync(join(root, ".github/workflows/ci.yml"), "utf8")));
  const engines = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).engines.node;
  assert.equal(engines, ">=20");
  assert.deepEqual(ci.jobs.test.strategy.matrix.node, [20, 22, 24]);
  const setup = ci.jobs.test.steps.find((s) => String(s.uses).startsWith("actions/setup-node"));
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow expression is the text under test.
  assert.equal(setup?.with["node-version"], "${{ matrix.node }}");
});

test("workflow_run fails as a trigger in any spelling; push, pull_request and workflow_dispatch pass", () => {
  for (const on of [
    "on: [workflow_run]",
    "on: workflow_run",
    'on:\n  workflow_run:\n    workflows: ["CI"]\n    types: [completed]',
  ])
    assert.match(
      checkWorkflow("x.yml", good.replace("on: [push]", on)).join(),
      /x\.yml: on: `workflow_run` runs with the repository's secrets/,
      on
    );
  assert.deepEqual(
    checkWorkflow("x.yml", good.replace("on: [push]", "on: [push, pull_request, workflow_dispatch]")),
    []
  );
});

/**
 * A publishing job: the fixture's job in a protected environment, with
 * `before` as its steps ahead of a `Publish` step that runs `run` with the
 * token in its env.
 *
 * @param {string} run
 * @param {string} [before]
 */
const publishJob = (run, before = "") =>
  good
    .replace("    steps:", "    environment: release\n    steps:")
    .replace(
      "      - run: npm test\n",
      `${before}      - name: Publish\n        env:\n          NODE_AUTH_TOKEN: ${TOKEN}\n        run: ${JSON.stringify(run)}\n`
    );

test("a step holding a secret that runs repository code fails, naming the step and what it runs", () => {
  for (const [run, runs] of [
    ["npm run build && npm publish", "npm run"],
    ["node scripts/release.mjs", "node"],
    ["npm pack && npm publish *.tgz", "npm pack"],
    ["./scripts/publish.sh", "./scripts/publish.sh"],
    ["bash scripts/publish.sh", "bash scripts/publish.sh"],
    ["make release", "make"],
    ["npm test\nnpm publish x.tgz", "npm test"],
    ["npm publish --provenance --access public", "npm publish (of a folder)"],
    ["cd packages/act && npm publish", "npm publish (of a folder)"],
  ])
    assert.match(
      checkWorkflow("x.yml", publishJob(run)).join("\n"),
      new RegExp(
        `jobs\\.build\\.steps\\[1\\] \\(Publish\\): runs \`${runs.replace(/[.*()]/g, "\\$&")}\` while NODE_AUTH_TOKEN holds a secret`
      ),
      run
    );
  // Publishing packed tarballs only, however the script finds them, passes.
  for (const run of [
    "npm publish tarballs/act-root-act-1.0.0.tgz --provenance --access public",
    'for name in act act-pg; do\n  npm publish "$(ls tarballs/act-root-"$name"-[0-9]*.tgz)" --provenance\ndone',
    'if [ -z "$NODE_AUTH_TOKEN" ]; then echo "not set; nothing published, node-version unchanged"; exit 0; fi\nnpm publish x.tgz',
  ])
    assert.deepEqual(checkWorkflow("x.yml", publishJob(run)), [], run);
});

test("a secret in a job whose other steps run repository code fails, even in a publish-only step", () => {
  const afterBuild = publishJob("npm publish x.tgz", "      - run: npm ci\n      - run: npm run build\n");
  assert.match(
    checkWorkflow("x.yml", afterBuild).join("\n"),
    /jobs\.build\.steps\[3\] \(Publish\): NODE_AUTH_TOKEN holds a secret in a job whose steps\[1\] runs `npm ci`, which can leave a changed npm/
  );
  const localAction = publishJob("npm publish x.tgz", "      - uses: ./.github/actions/prepare\n");
  assert.match(
    checkWorkflow("x.yml", localAction).join(),
    /steps\[1\] runs `the local action \.\/\.github\/actions\/prepare`/
  );
  // A pinned action beside the checkout runs no repository code.
  const download = publishJob("npm publish x.tgz", `      - uses: actions/download-artifact@${SHA} # v4.3.0\n`);
  assert.deepEqual(checkWorkflow("x.yml", download), []);
  // A secret handed to an action through `with:` counts as held too.
  const viaWith = good
    .replace("    steps:", "    environment: release\n    steps:")
    .replace(
      "      - run: npm test\n",
      `      - run: npm test\n      - uses: someone/upload@${SHA} # v1.0.0\n        with:\n          token: ${TOKEN}\n`
    );
  assert.match(
    checkWorkflow("x.yml", viaWith).join(),
    /steps\[2\]: token holds a secret in a job whose steps\[1\] runs `npm test`/
  );
});

test("a job holding a secret or id-token: write outside an environment fails", () => {
  const noEnvironment = publishJob("npm publish x.tgz").replace("    environment: release\n", "");
  assert.match(checkWorkflow("x.yml", noEnvironment).join(), /jobs\.build: holds a secret without an `environment:`/);
  const signs = good.replace("contents: read", "id-token: write").replace("  build:", "  publish:");
  assert.match(
    checkWorkflow("release.yml", signs).join(),
    /jobs\.publish: may sign with `id-token: write` without an `environment:`/
  );
  assert.deepEqual(
    checkWorkflow("release.yml", signs.replace("    steps:", "    environment: release\n    steps:")),
    []
  );
});

test("the release workflow publishes from a job in the release environment, every action pinned by SHA", () => {
  const release = /** @type {{ jobs: Record<string, any> }} */ (
    parse(readFileSync(join(root, ".github/workflows/release.yml"), "utf8"))
  );
  assert.equal(release.jobs.publish.environment, "release");
  assert.deepEqual(release.jobs.publish.permissions, { "id-token": "write" });
  assert.deepEqual(release.jobs.build.permissions, { contents: "read" });
  for (const job of Object.values(release.jobs))
    for (const step of job.steps) if (step.uses) assert.match(step.uses, /@[0-9a-f]{40}$/, step.uses);
});
