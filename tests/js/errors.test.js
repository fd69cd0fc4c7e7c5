// What a person reads when the server refuses or cannot be reached.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError, codeOf, describe as explain } from "../../src/omega/web/js/errors.js";

test("refusals read as sentences", () => {
  assert.equal(explain(new ApiError("illegal_move", "cell e5 is occupied by White")),
    "That move is not allowed: cell e5 is occupied by White");
  assert.equal(explain(new ApiError("network", "Cannot reach the server.")), "Cannot reach the server.");
  assert.equal(explain(new ApiError("conflict", "request id reused")), "request id reused");
  assert.equal(explain(new Error("boom")), "boom");
  assert.deepEqual([codeOf(new ApiError("forbidden", "no")), codeOf(new Error("x"))], ["forbidden", ""]);
});
