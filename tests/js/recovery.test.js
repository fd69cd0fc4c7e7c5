// The links a mail brings the browser back with: what the page takes from the address.

import assert from "node:assert/strict";
import { test } from "node:test";

import { mailedLink } from "../../src/omega/web/js/recovery.js";

test("a mailed link's kind and token come from the fragment", () => {
  assert.deepEqual(mailedLink("#verify-email=7.1800000000.abc_-"), { kind: "verify-email", token: "7.1800000000.abc_-" });
  assert.deepEqual(mailedLink("#reset-password=AbC-_9"), { kind: "reset-password", token: "AbC-_9" });
});

test("anything else is no mailed link", () => {
  for (const hash of ["", "#seat=abc", "#reset-password=", "#reset-password=a b", "#verify-email=x&y", `#reset-password=${"a".repeat(129)}`]) {
    assert.equal(mailedLink(hash), null, hash);
  }
});
