import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.js";
import { ErrorBox } from "./common.js";
import { signIn } from "./session.js";
import "./style.css";

const root = createRoot(document.getElementById("root")!);
// Signed in before the first API call, so that no view starts without the session.
void signIn()
  .catch((error: Error) => `Could not sign in: ${error.message}`)
  .then((refused) =>
    root.render(
      <StrictMode>
        {refused ? (
          <main id="main">
            <h1>Act Inspector</h1>
            <ErrorBox message={refused} />
          </main>
        ) : (
          <App />
        )}
      </StrictMode>
    )
  );
