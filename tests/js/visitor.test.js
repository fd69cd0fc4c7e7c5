// The visitor's fixes (issue 34) that are pure: the chat's counter against the server's
// limit, counted as the server counts (code points), and a served rule as a sentence.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ruleSentence } from "../../src/omega/web/js/siteconfig.js";
import { chatCount } from "../../src/omega/web/js/views/chat.js";

test("the chat counter says what is left, and how many too many past the limit", () => {
  assert.deepEqual(chatCount("hi", 300), { text: "298 characters left", over: false, length: 2 });
  assert.deepEqual(chatCount("x".repeat(299), 300).text, "1 character left");
  assert.deepEqual(chatCount("x".repeat(300), 300), { text: "0 characters left", over: false, length: 300 });
  assert.deepEqual(chatCount("x".repeat(301), 300), { text: "1 character too many (at most 300)", over: true, length: 301 });
  // An emoji is one character for the server (two UTF-16 units for a maxlength).
  assert.equal(chatCount("🙂".repeat(300), 300).over, false);
  assert.equal(chatCount("  hi  ", 300).length, 2); // sent trimmed
  assert.deepEqual(chatCount("hi", null), { text: "", over: false, length: 2 }); // limit not known yet
});

test("a served rule reads as a sentence", () => {
  assert.equal(ruleSentence("a password is 8 to 256 characters"), "A password is 8 to 256 characters.");
  assert.equal(ruleSentence(""), "");
});
