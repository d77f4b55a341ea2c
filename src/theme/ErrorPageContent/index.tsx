// Wrapped: keeps the theme's crash screen ("This page crashed." + "Try again", the wording readers and tests expect) and adds a way out when retrying does not help.
import type { ReactNode } from "react";
import ErrorPageContent from "@theme-original/ErrorPageContent";
import type ErrorPageContentType from "@theme/ErrorPageContent";
import type { WrapperProps } from "@docusaurus/types";
import useDocusaurusContext from "@docusaurus/useDocusaurusContext";

type Props = WrapperProps<typeof ErrorPageContentType>;

export default function ErrorPageContentWrapper(props: Props): ReactNode {
  const { siteConfig } = useDocusaurusContext();
  const issues = `https://github.com/${siteConfig.organizationName}/${siteConfig.projectName}/issues`;
  return (
    <>
      <ErrorPageContent {...props} />
      <div className="container margin-bottom--xl">
        <div className="row">
          <p className="col col--6 col--offset-3">
            If trying again does not help, go back to the <a href={`${siteConfig.baseUrl}docs/intro`}>introduction</a>{" "}
            or <a href={issues}>report the problem</a>.
          </p>
        </div>
      </div>
    </>
  );
}
