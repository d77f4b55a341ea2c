// @ts-check
// Checks the GitHub Actions workflows and the Dependabot file for the rules
// this repository keeps (actionlint is not installable here, so this covers
// the structure and the security rules, not every expression):
//
// - every file parses as YAML and has `on` and `jobs`;
// - the workflow grants nothing by default (`permissions: {}` or read-only),
//   and every job states its own permissions;
// - write permissions only where they are needed: `pages: write` and
//   `id-token: write` for the Pages deploy job, `id-token: write` (npm
//   provenance) for the release publish job; never `write-all`;
// - every job has `runs-on` and `timeout-minutes`, and each `needs` names a job;
// - every action, GitHub's own included, is pinned by its full commit SHA
//   with the tag in a comment (`uses: owner/repo@<40 hex> # v4.2.2`): a tag
//   can be moved to other code, a commit cannot;
// - secrets only in the `env:` (or `with:`) of the step that uses them: not
//   in the workflow's or a job's `env:` (every step would see them, including
//   install scripts and the build), not pasted into a `run:` script, not
//   handed on with `secrets: inherit`;
// - a step that holds a secret runs no code of the repository or of its
//   dependencies: no install, no `npm run`/`test`/`pack`, no `node`, `npx` or
//   script file, and `npm publish` only of packed `.tgz` files (publishing a
//   folder runs its package's lifecycle scripts);
// - nor does any other step of its job: code run earlier in a job can leave a
//   changed `npm` on the PATH or a hook in ~/.npmrc for the step with the
//   token. Build and pack in one job, publish the tarballs from another;
// - a job that holds a secret or `id-token: write` runs in an `environment:`,
//   so that the environment's reviewers and branch rules gate it;
// - no `pull_request_target` or `workflow_run` trigger (both run with the
//   repository's secrets and write token on behalf of code or artifacts from
//   a fork's pull request), and no `${{ github.event… }}` or
//   `${{ github.head_ref }}` pasted into a `run:` script (pass them through `env:`);
// - `actions/checkout` does not keep the token in .git/config;
// - dependabot.yml updates npm and github-actions.
//
// `node scripts/check-workflows.mjs` checks .github/; the tests in
// check-workflows.test.mjs run the same checks on broken examples.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseDocument } from "yaml";

/**
 * Write grants allowed, per workflow file and job. Everything else is read-only.
 *
 * @type {Record<string, Record<string, string[]>>}
 */
export const WRITE_GRANTS = {
  "pages.yml": { deploy: ["pages", "id-token"] },
  "release.yml": { publish: ["id-token"] },
};

const SHA = /^[0-9a-f]{40}$/;
const UNSAFE_IN_RUN = /\$\{\{\s*github\.(event\.|head_ref)/;
// Any expression that names the secrets context, however it reads it
// (`secrets.X`, `secrets['X']`, `toJSON(secrets)`, `format('{0}', secrets.X)`):
// a single `}` inside the expression does not end it, `}}` does.
const SECRET = /\$\{\{(?:[^}]|\}(?!\}))*\bsecrets\b/;
const INSTALLS = /\b(npm\s+(ci|install|i|add)|yarn(\s+install)?|pnpm\s+(install|i|add)|npx)\b/;
// Commands that run the repository's code or its dependencies': npm's
// script and install commands (`pack` runs `prepack`), runtimes and package
// runners, `make`, and a script file run by path or through a shell. Each is
// a whole word of the script: `node` but not `node-version`.
const NPM_RUNS =
  "run|run-script|rum|urn|test|tst|t|start|stop|restart|pack|ci|install|i|add|exec|x|rebuild|rb|explore|install-test|it|install-ci-test|cit";
const RUNNERS = "npx|node|tsx|ts-node|bun|bunx|deno|yarn|pnpm|corepack|make";
const RUNS_CODE = new RegExp(
  `(?:^|[\\s;&|(\`])(npm\\s+(?:${NPM_RUNS})|${RUNNERS}|(?:bash|sh|zsh|source|\\.)\\s+(?!-)[^\\s;&|)]+|\\.\\.?/[\\w./-]+)(?=$|[\\s;&|)\`])`
);

/**
 * Names of the variables in an `env:` map whose value reads a secret.
 *
 * @param {unknown} env
 */
const secretsIn = (env) =>
  Object.entries(env && typeof env === "object" ? env : {})
    .filter(([, value]) => SECRET.test(String(value)))
    .map(([name]) => name);

/**
 * The first command in a `run:` script that runs the repository's or its
 * dependencies' code, or undefined. `npm publish` counts unless every one
 * names a packed `.tgz` (publishing a folder runs its lifecycle scripts).
 *
 * @param {unknown} run
 * @returns {string | undefined}
 */
function codeRunBy(run) {
  if (typeof run !== "string") return undefined;
  const match = RUNS_CODE.exec(run);
  if (match) return match[1].replace(/\s+/g, " ");
  const publishes = run.split(/\n|;|&&|\|\|/).filter((command) => /\bnpm\s+publish\b/.test(command));
  if (publishes.some((command) => !/\.tgz\b/.test(command))) return "npm publish (of a folder)";
  return undefined;
}

/**
 * Problems of one workflow file, as strings ("file: job: what").
 *
 * @param {string} file
 * @param {string} text
 * @returns {string[]}
 */
export function checkWorkflow(file, text) {
  /** @type {string[]} */
  const problems = [];
  /** @param {string} where @param {string} what */
  const say = (where, what) => problems.push(`${file}: ${where ? `${where}: ` : ""}${what}`);
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    for (const e of doc.errors) say("", `YAML: ${e.message}`);
    return problems;
  }
  const wf = doc.toJS();
  if (!wf || typeof wf !== "object") return [`${file}: not a workflow`];
  if (!wf.on) say("", "no `on` trigger");
  const triggers = typeof wf.on === "string" ? [wf.on] : Array.isArray(wf.on) ? wf.on : Object.keys(wf.on ?? {});
  if (triggers.includes("pull_request_target"))
    say("", "`pull_request_target` runs untrusted code with the repository's token");
  if (triggers.includes("workflow_run"))
    say(
      "on",
      "`workflow_run` runs with the repository's secrets and a write token after a workflow that a fork's pull request can start, and what it downloads from that run is the fork's; use a `pull_request` workflow without secrets"
    );
  if (!wf.jobs || typeof wf.jobs !== "object" || Object.keys(wf.jobs).length === 0) say("", "no jobs");

  for (const name of secretsIn(wf.env))
    say("env", `${name} reads a secret that every step of every job would see; give it to the one step that uses it`);
  if (!("permissions" in wf)) say("", "no top-level `permissions` (the default token may write)");
  else checkPermissions(wf.permissions, [], (what) => say("permissions", what));

  const allowed = WRITE_GRANTS[file] ?? {};
  for (const [id, job] of Object.entries(wf.jobs ?? {})) {
    const where = `jobs.${id}`;
    if (!job || typeof job !== "object") {
      say(where, "not a job");
      continue;
    }
    if (!("permissions" in job)) say(where, "no `permissions` of its own");
    else checkPermissions(job.permissions, allowed[id] ?? [], (what) => say(where, what));
    if (!job.uses) {
      if (!job["runs-on"]) say(where, "no `runs-on`");
      if (!job["timeout-minutes"]) say(where, "no `timeout-minutes` (the default is six hours)");
    }
    for (const name of secretsIn(job.env))
      say(
        `${where}.env`,
        `${name} reads a secret that every step of the job would see; give it to the one step that uses it`
      );
    if (job.secrets === "inherit") say(where, "`secrets: inherit` hands every secret on; pass the one it needs");
    for (const need of [job.needs ?? []].flat())
      if (!wf.jobs[need]) say(where, `needs \`${need}\`, which is not a job here`);
    /** @type {Array<Record<string, any>>} */
    const steps = job.steps ?? [];
    const stepAt = (/** @type {number} */ i) => `${where}.steps[${i}]${steps[i]?.name ? ` (${steps[i].name})` : ""}`;
    // What each step runs of the repository's or its dependencies' code: a
    // local action (`uses: ./…`) is the repository's code too.
    const runs = steps.map((step) =>
      typeof step?.uses === "string" && step.uses.startsWith("./")
        ? `the local action ${step.uses}`
        : codeRunBy(step?.run)
    );
    const holders = steps
      .map((step, i) => ({ i, names: [...secretsIn(step?.env), ...secretsIn(step?.with)] }))
      .filter(({ names }) => names.length > 0);
    for (const { i, names } of holders) {
      const held = `${names.join(", ")} ${names.length > 1 ? "hold secrets" : "holds a secret"}`;
      const installs = typeof steps[i]?.run === "string" && INSTALLS.test(steps[i].run);
      if (installs) say(stepAt(i), `installs packages while ${held}; their install scripts would see it`);
      else if (runs[i]) say(stepAt(i), `runs \`${runs[i]}\` while ${held}; the code it runs would see it`);
      const other = runs.findIndex((run, k) => k !== i && run);
      if (other >= 0)
        say(
          stepAt(i),
          `${held} in a job whose ${stepAt(other).slice(where.length + 1)} runs \`${runs[other]}\`, which can leave a changed npm or ~/.npmrc behind for it; build and pack in another job and publish the tarballs from one that runs no such code`
        );
    }
    const grants = job.permissions && typeof job.permissions === "object" ? job.permissions : {};
    if (!job.environment && (holders.length > 0 || grants["id-token"] === "write"))
      say(
        where,
        `${holders.length > 0 ? "holds a secret" : "may sign with `id-token: write`"} without an \`environment:\`; run it in a protected environment, whose reviewers and tag rules then gate it`
      );
    steps.forEach((step, i) => {
      const at = stepAt(i);
      if (typeof step?.run === "string" && UNSAFE_IN_RUN.test(step.run))
        say(at, "event data pasted into a script; pass it through `env:`");
      if (typeof step?.run === "string" && SECRET.test(step.run))
        say(at, "a secret pasted into a script; pass it through the step's `env:`");
      if (typeof step?.uses === "string" && /^actions\/checkout@/.test(step.uses)) {
        if (step.with?.["persist-credentials"] !== false)
          say(at, "actions/checkout without `persist-credentials: false` leaves the token in .git/config");
      }
    });
  }
  for (const problem of checkPinning(text)) say("", problem);
  return problems;
}

/**
 * Permissions are `{}`, `read-all`, or a map whose writes are all in `writes`.
 *
 * @param {unknown} permissions
 * @param {string[]} writes
 * @param {(what: string) => void} say
 */
function checkPermissions(permissions, writes, say) {
  if (permissions === "read-all" || permissions === null) return;
  if (typeof permissions === "string") {
    say(`\`permissions: ${permissions}\` — list each scope instead`);
    return;
  }
  for (const [scope, level] of Object.entries(permissions ?? {})) {
    if (level === "read" || level === "none") continue;
    if (level !== "write") say(`${scope}: ${level} is not read, write or none`);
    else if (!writes.includes(scope)) say(`${scope}: write is not needed here`);
  }
}

/**
 * Every `uses:` line of another repository's action, checked on the raw text (for the comment).
 *
 * @param {string} text
 * @returns {string[]}
 */
export function checkPinning(text) {
  /** @type {string[]} */
  const problems = [];
  text.split("\n").forEach((line, i) => {
    const m = /^\s*(?:-\s*)?uses:\s*["']?([^\s"'#]+)["']?\s*(#.*)?$/.exec(line);
    if (!m) return;
    const [, ref, comment] = m;
    if (ref.startsWith("./") || ref.startsWith("docker://")) return;
    const at = ref.lastIndexOf("@");
    if (at < 0) {
      problems.push(`line ${i + 1}: \`${ref}\` has no version`);
      return;
    }
    const version = ref.slice(at + 1);
    if (SHA.test(version)) {
      if (!comment || !/#\s*v?\d/.test(comment))
        problems.push(`line ${i + 1}: \`${ref}\` — add the tag it stands for as a comment (# v1.2.3)`);
      return;
    }
    problems.push(`line ${i + 1}: \`${ref}\` is not pinned by a full commit SHA`);
  });
  return problems;
}

/**
 * Problems of dependabot.yml.
 *
 * @param {string} text
 * @returns {string[]}
 */
export function checkDependabot(text) {
  /** @type {string[]} */
  const problems = [];
  let config;
  try {
    config = parse(text);
  } catch (e) {
    return [`dependabot.yml: YAML: ${e instanceof Error ? e.message : String(e)}`];
  }
  if (config?.version !== 2) problems.push("dependabot.yml: `version: 2` missing");
  /** @type {Array<{ "package-ecosystem"?: string, schedule?: { interval?: string } }>} */
  const updates = config?.updates ?? [];
  const ecosystems = new Set(updates.map((u) => u["package-ecosystem"]));
  for (const needed of ["npm", "github-actions"])
    if (!ecosystems.has(needed)) problems.push(`dependabot.yml: no updates for ${needed}`);
  for (const u of updates)
    if (!u.schedule?.interval) problems.push(`dependabot.yml: ${u["package-ecosystem"]} has no schedule`);
  return problems;
}

/**
 * Every problem under a .github folder.
 *
 * @param {string} githubDir
 * @returns {string[]}
 */
export function checkRepository(githubDir) {
  /** @type {string[]} */
  const problems = [];
  const dir = join(githubDir, "workflows");
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
  if (files.length === 0) problems.push("no workflows");
  for (const file of files) problems.push(...checkWorkflow(file, readFileSync(join(dir, file), "utf8")));
  let dependabot;
  try {
    dependabot = readFileSync(join(githubDir, "dependabot.yml"), "utf8");
  } catch {
    problems.push("no .github/dependabot.yml");
  }
  if (dependabot !== undefined) problems.push(...checkDependabot(dependabot));
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const problems = checkRepository(join(root, ".github"));
  for (const p of problems) console.error(`check:workflows: ${p}`);
  if (problems.length > 0) process.exit(1);
  console.log("check:workflows: the workflows keep the rules");
}
