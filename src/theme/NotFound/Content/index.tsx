// Ejected (a wrapper would add a second <main>): the stock 404 only says "contact the owner"; this one sends the reader on — intro, API, search.
import { useEffect, useState, type ReactNode } from "react";
import clsx from "clsx";
import Link from "@docusaurus/Link";
import Translate, { translate } from "@docusaurus/Translate";
import { PageMetadata } from "@docusaurus/theme-common";
import { useLocation } from "@docusaurus/router";
import Heading from "@theme/Heading";
import type { Props } from "@theme/NotFound/Content";

// The navbar search slot is filled by a search plugin; whichever is
// installed, its input is the first text field in the navbar.
const SEARCH_INPUT = '.navbar .navbar__search-input, .navbar input[type="search"], .navbar input[aria-label*="earch"]';

function SearchButton(): ReactNode {
  const [present, setPresent] = useState(false);
  useEffect(() => setPresent(document.querySelector(SEARCH_INPUT) !== null), []);
  if (!present) return null;
  // Looked up on each press: the navbar (and its search box) can render
  // again after this page has.
  const focusSearch = () => document.querySelector<HTMLInputElement>(SEARCH_INPUT)?.focus();
  return (
    <li>
      <button type="button" className="clean-btn act-link-button" onClick={focusSearch}>
        <Translate id="theme.NotFound.search">Search the documentation</Translate>
      </button>
    </li>
  );
}

/** The path asked for — only once hydrated: 404.html is rendered for every
 * path, so server and client markup must not depend on it. */
function useRequestedPath(): string | null {
  const { pathname } = useLocation();
  const [path, setPath] = useState<string | null>(null);
  useEffect(() => setPath(pathname), [pathname]);
  return path;
}

export default function NotFoundContent({ className }: Props): ReactNode {
  const pathname = useRequestedPath();
  const inApi = pathname?.includes("/docs/api/") ?? false;
  return (
    <main className={clsx("container margin-vert--xl", className)}>
      {/* The docs plugin renders this content without the NotFound page for
          unknown paths under /docs/: give those the page title too. */}
      <PageMetadata title={translate({ id: "theme.NotFound.title", message: "Page Not Found" })} />
      <div className="row">
        <div className="col col--6 col--offset-3 act-not-found">
          <Heading as="h1" className="hero__title">
            <Translate id="theme.NotFound.title" description="The title of the 404 page">
              Page Not Found
            </Translate>
          </Heading>
          <p>
            There is no page at {pathname ? <code>{pathname}</code> : "this address"}. It may have moved, or the link
            that brought you here may be wrong.
          </p>
          <p>{inApi ? "Looking for an API symbol? Try the API index first." : "Where to go from here:"}</p>
          <ul>
            <li>
              <Link to="/docs/intro">The introduction</Link> — what Act is and a quick start
            </li>
            <li>
              <Link to="/docs/api/">The API reference</Link> — every export of the packages
            </li>
            <SearchButton />
          </ul>
        </div>
      </div>
    </main>
  );
}
