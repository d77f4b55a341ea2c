// The theme's CodeBlock, with Prism's extra languages registered first (they
// used to be registered by a client module on every page; see
// src/plugins/prism-with-code-blocks).
import "./prism-languages";
import CodeBlock from "@theme-original/CodeBlock";

export default CodeBlock;
