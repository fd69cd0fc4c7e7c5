// What a person reads when the server refuses or cannot be reached.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError, codeOf, describe as explain, problemText } from "../../src/omega/web/js/errors.js";

test("refusals read as sentences", () => {
  assert.equal(explain(new ApiError("illegal_move", "cell e5 is occupied by White")),
    "That move is not allowed: cell e5 is occupied by White");
  assert.equal(explain(new ApiError("network", "Cannot reach the server.")), "Cannot reach the server.");
  assert.equal(explain(new ApiError("conflict", "request id reused")), "request id reused");
  assert.equal(explain(new Error("boom")), "boom");
  assert.deepEqual([codeOf(new ApiError("forbidden", "no")), codeOf(new Error("x"))], ["forbidden", ""]);
});

test("a link that cannot open a table says which kind of link failed, and why", () => {
  assert.equal(problemText("not_found", "seat", "abc").title, "No such table");
  assert.equal(problemText("not_found", null, "abc").title, "No such table");
  assert.match(problemText("", null, "abc").text, /needs an invite link/);
  assert.equal(problemText("forbidden", "seat", "abc").title, "This invite link does not work");
  const watch = problemText("forbidden", "watch", "abc");
  assert.equal(watch.title, "This spectator link does not work");
  assert.doesNotMatch(watch.text, /seat/);
  assert.deepEqual(problemText("internal", "seat", "abc", "internal server error"),
    { title: "This table cannot be shown", text: "internal server error" });
});
