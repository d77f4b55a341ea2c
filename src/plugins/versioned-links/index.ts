/**
 * Remark plugin: a site link in a page (`/docs/api/act/src/functions/act`,
 * `/docs/guides/testing`) leads to the same version of the docs as the page.
 *
 * Guides link the API reference, and a few guides each other, by URL: the
 * API is another docs instance, so a file link cannot cross to it. Docusaurus
 * keeps such URLs as written, and once a release is cut the guides of Next
 * (served under /docs/next/…) would send readers to the released API, and
 * an older release's guides to the newest one. The version of a page comes
 * from where its file lives: `docs/` and `docs-api/` are the current docs,
 * `versioned_docs/version-<v>/` and `api_versioned_docs/version-<v>/` the
 * release <v>. While no release is cut every link is left as it is.
 */
import { versionPath } from "../../../scripts/docs-versions.mjs";

type Node = { type: string; url?: string; children?: Node[] };
type File = { path?: string; history?: string[] };

/** The options: the cut versions, newest first (scripts/docs-versions.mjs). */
export type VersionedLinksOptions = { released: string[] };

const VERSIONED_FILE = /(?:^|\/)(?:[\w-]+_)?versioned_docs\/version-([^/]+)\//;
/** `/docs/…`, with an optional base path before it; a link to a served version stays. */
const SITE_LINK = /^((?:\/act-root)?\/docs\/)(api\/)?(.*)$/;

/** The version of the docs a file belongs to: a cut version, or "current". */
export function versionOfFile(path: string): string {
  return VERSIONED_FILE.exec(path.split("\\").join("/"))?.[1] ?? "current";
}

/**
 * `url` as a link of a page of `version`: `/docs/[api/]<rest>` gains the
 * version's segment (`/docs/next/…`, `/docs/api/0.1.0/…`) unless that version
 * is the one served at /docs/, or the link already names a version.
 */
export function versionedUrl(url: string, version: string, released: string[]): string {
  const segment = versionPath(version, released);
  const match = SITE_LINK.exec(url);
  if (!segment || !match) return url;
  const [, docs, api = "", rest] = match;
  const first = rest.split(/[/#?]/)[0];
  if (first === "next" || released.includes(first)) return url;
  return `${docs}${api}${segment}/${rest}`;
}

export default function remarkVersionedLinks(options: VersionedLinksOptions) {
  const released = options?.released ?? [];
  return (tree: Node, file: File) => {
    if (!released.length) return;
    const version = versionOfFile(file.path ?? file.history?.[0] ?? "");
    const visit = (node: Node) => {
      if ((node.type === "link" || node.type === "definition") && node.url)
        node.url = versionedUrl(node.url, version, released);
      node.children?.forEach(visit);
    };
    visit(tree);
  };
}
