/**
 * A code block that keeps the HTML the server rendered, highlighted, and
 * adds the theme's copy and word-wrap buttons to it.
 *
 * React leaves an element whose content is `dangerouslySetInnerHTML`
 * untouched when it hydrates, which is what keeps that HTML: no token is
 * computed again in the browser, and Prism is not loaded. The buttons are
 * the theme's own (@theme/CodeBlock/Buttons), given the same context the
 * theme's block gives them — the code to copy (from the block's source, as
 * the theme computes it) and the word-wrap state bound to the kept `<pre>` —
 * and rendered through a portal where the theme renders them: after the
 * `<pre>`, inside its parent. Colours need no re-render either: they are CSS
 * variables set per colour mode (src/prism-themes.ts).
 *
 * A block mounted again (the theme's tabs mount their panels anew once the
 * page runs, to show the reader's stored choice; a page visited again)
 * gets the HTML its first copy kept, so it needs no Prism either. A block
 * with no HTML to show (one rendered in the browser the first time, after a
 * client-side navigation) renders anew instead, before it is painted.
 */
import {
  startTransition,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ComponentProps,
  type ReactNode,
} from "react";
import { createPortal } from "react-dom";
import { useThemeConfig } from "@docusaurus/theme-common";
import { CodeBlockContextProvider, createCodeBlockMetadata, useCodeWordWrap } from "@docusaurus/theme-common/internal";
import Buttons from "@theme/CodeBlock/Buttons";
import type CodeBlockType from "@theme/CodeBlock";
import Rendered, { WRAPPER_CLASS } from "./Rendered";
import { codeText } from "./Plain";

type Props = ComponentProps<typeof CodeBlockType>;

/** The theme's buttons for the kept block whose `<pre>` is `pre`. */
function KeptButtons({ pre, props, code }: { pre: HTMLPreElement; props: Props; code: string }): ReactNode {
  const { className, metastring, title, language, showLineNumbers } = props;
  const { prism } = useThemeConfig();
  // Computed here rather than in Kept: reading the block's magic comments
  // goes over every line, and Kept renders while the page hydrates, which
  // the buttons come after.
  const metadata = useMemo(
    () =>
      createCodeBlockMetadata({
        code,
        className,
        metastring,
        magicComments: prism.magicComments,
        defaultLanguage: prism.defaultLanguage,
        language,
        title,
        showLineNumbers,
      }),
    [code, className, metastring, language, title, showLineNumbers, prism]
  );
  const wordWrap = useCodeWordWrap();
  // The word-wrap state works on the kept <pre>, as on the theme's own
  // (set before the hook's effects read it).
  (wordWrap.codeBlockRef as { current: HTMLPreElement | null }).current = pre;
  return (
    <CodeBlockContextProvider metadata={metadata} wordWrap={wordWrap}>
      <Buttons />
    </CodeBlockContextProvider>
  );
}

/** The server's HTML of each block seen while hydrating, by its source and options. */
const serverHtml = new Map<string, string>();

export default function Kept(props: Props): ReactNode {
  const ref = useRef<HTMLDivElement>(null);
  const { className, metastring, title, language, showLineNumbers } = props;
  const code = codeText(props.children);
  const id = [className, metastring, title, language, showLineNumbers, code].join("\u0000");
  const [html] = useState(() => serverHtml.get(id) ?? "");
  const [pre, setPre] = useState<HTMLPreElement | null>(null);
  const [empty, setEmpty] = useState(false);
  useLayoutEffect(() => {
    const found = ref.current?.querySelector("pre");
    if (!found?.parentElement) return setEmpty(true);
    // Before the buttons are added: the block as the server rendered it.
    if (!serverHtml.has(id)) serverHtml.set(id, ref.current!.innerHTML);
    // The buttons come in a transition. A state set in a layout effect is
    // rendered at once, in the task of the commit that ran the effect — the
    // page's hydration — so every block's buttons, and a portal per block
    // that React makes listen to every event, lengthened the page's longest
    // task (on the `Act` class page at a 4× slowed CPU, 449 and 568 ms in
    // two loads; 138 and 255 without them). In a transition React renders
    // them afterwards, in short slices. The server's HTML has no buttons
    // either, so nothing the reader saw goes away meanwhile.
    startTransition(() => setPre(found));
  }, [id]);
  if (empty) return <Rendered {...props} />;
  return (
    <>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: the HTML is the server's own render of this block (empty while hydrating, which keeps the server's DOM), never text from elsewhere. */}
      <div ref={ref} className={WRAPPER_CLASS} dangerouslySetInnerHTML={{ __html: html }} suppressHydrationWarning />
      {pre?.parentElement && createPortal(<KeptButtons pre={pre} props={props} code={code} />, pre.parentElement)}
    </>
  );
}
