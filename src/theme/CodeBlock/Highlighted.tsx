// The theme's code block as it is, highlighted by Prism: what the server
// renders, and what the browser loads only to render a block anew (see
// ./index.tsx). Prism's extra languages are registered first.
import "./prism-languages";
import CodeBlock from "@theme-original/CodeBlock";

export default CodeBlock;
