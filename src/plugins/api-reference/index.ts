/**
 * The API reference generator: docusaurus-plugin-typedoc, called with the
 * site's TypeDoc options (scripts/typedoc/options.ts) from here instead of
 * being listed with them in the config.
 *
 * Why: Docusaurus copies the site config, every plugin's options included,
 * into the code each page loads. TypeDoc's options — entry points, tables,
 * validation, tags — cost every page about 3 KB that no browser reads. A
 * plugin given as a function appears there only with the options it is
 * called with: here the repository URL and the watch flag.
 *
 * The wrapped plugin's `generate-typedoc` command finds its options by
 * looking for its package name in the config, so it does not see these; the
 * site does not use it (every build and `npm start` generate the pages).
 */
import type { LoadContext } from "@docusaurus/types";
import typedocPlugin from "docusaurus-plugin-typedoc";
import { typedocOptions } from "../../../scripts/typedoc/options";

export type ApiReferenceOptions = {
  /** https://github.com/<owner>/<repo>, for the "Defined in" links. */
  repositoryUrl: string;
  /** Regenerate the pages on edit (`npm start`). */
  watch: boolean;
  /** The plugin instance's id (Docusaurus sets it). */
  id?: string;
};

/**
 * @example
 * // docusaurus.config.ts
 * plugins: [[apiReference, { repositoryUrl: "https://github.com/act-root/act-root", watch: false }]]
 */
export default function apiReference(context: LoadContext, options: unknown) {
  const { repositoryUrl, watch, id } = options as ApiReferenceOptions;
  // The plugin strips `id` before handing its options to TypeDoc.
  return typedocPlugin(context, {
    ...typedocOptions({ siteDir: context.siteDir, repositoryUrl, watch }),
    id,
  } as Parameters<typeof typedocPlugin>[1]);
}
