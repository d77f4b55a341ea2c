/**
 * The base path /act-root/ (not a docs page) lands here
 * instead of on a not-found page: title, tagline, a short example and the two
 * ways in — the introduction and the API reference. No external resources.
 */
import type { ReactNode } from "react";
import Link from "@docusaurus/Link";
import useDocusaurusContext from "@docusaurus/useDocusaurusContext";
import useBaseUrl from "@docusaurus/useBaseUrl";
import ThemedImage from "@theme/ThemedImage";
import Layout from "@theme/Layout";
import Heading from "@theme/Heading";
import CodeBlock from "@theme/CodeBlock";
import styles from "./index.module.css";

const example = `import { z } from "zod";
import { act, state } from "@act-root/act";

// A state: its events, how they change it, its actions.
const Counter = state("Counter", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Incremented: z.object({ by: z.number() }) })
  .patch({
    Incremented: ({ data }, { count }) => ({ count: count + data.by }),
  })
  .on("increment", z.object({ by: z.number().positive() }))
  .emit(({ by }) => ["Incremented", { by }])
  .build();

const app = act().with(Counter).build();
const actor = { id: "u-1", name: "Ada" };
await app.do("increment", { stream: "c-1", actor }, { by: 2 });
const { state: counter } = await app.load(Counter, "c-1");
console.log(counter); // { count: 2 }`;

const features = [
  {
    title: "Typed end to end",
    text: "States, actions and events are Zod schemas; handlers, patches and reactions are checked by the compiler.",
  },
  {
    title: "Events are the truth",
    text: "Every change is an event in a stream; state is a fold over it, with snapshots and optimistic concurrency.",
  },
  {
    title: "Ports, not frameworks",
    text: "Start in memory, switch to Postgres with one line: the store, the logger and disposal are swappable ports.",
  },
];

export default function Home(): ReactNode {
  const { siteConfig } = useDocusaurusContext();
  return (
    <Layout title="Home" description={siteConfig.tagline}>
      <header className={styles.hero}>
        <div className="container">
          <ThemedImage
            className={styles.logo}
            alt=""
            sources={{ light: useBaseUrl("/img/logo.svg"), dark: useBaseUrl("/img/logo-dark.svg") }}
            width={88}
            height={88}
          />
          <Heading as="h1" className={styles.title}>
            {siteConfig.title}
          </Heading>
          <p className={styles.tagline}>{siteConfig.tagline}</p>
          <div className={styles.actions}>
            <Link className="button button--primary button--lg" to="/docs/intro">
              Read the introduction
            </Link>
            <Link className="button button--secondary button--lg" to="/docs/api/">
              Browse the API
            </Link>
          </div>
        </div>
      </header>
      <main className="container margin-vert--xl">
        <div className="row">
          <section className="col col--7" aria-labelledby="example-heading">
            <Heading as="h2" id="example-heading">
              A state in a few lines
            </Heading>
            <CodeBlock language="ts" title="counter.ts">
              {example}
            </CodeBlock>
          </section>
          <section className="col col--5" aria-labelledby="why-heading">
            <Heading as="h2" id="why-heading">
              Why Act
            </Heading>
            {features.map((feature) => (
              <div key={feature.title} className="margin-bottom--md">
                <Heading as="h3" className={styles.featureTitle}>
                  {feature.title}
                </Heading>
                <p>{feature.text}</p>
              </div>
            ))}
          </section>
        </div>
      </main>
    </Layout>
  );
}
