-- Text helpers of the front end's base layer.
local function text()
  return require("claudenova.core.text")
end

return {
  ["wrap breaks at spaces only, never at a dot or a colon"] = {
    run = function(t)
      local lines =
        text().wrap("Claude: Step 1/9 · An edit is a proposal: greet.py as it would be, beside the original", 30)
      t:eq(lines, {
        "Claude: Step 1/9 · An edit is",
        "a proposal: greet.py as it",
        "would be, beside the original",
      }, "wrapped at 30")
      for _, l in ipairs(lines) do
        t:eq(vim.fn.strdisplaywidth(l) <= 30, true, "a line fits: " .. l)
      end
      t:eq(
        text().wrap("see (:ClaudeNova comment) there", 14),
        { "see", "(:ClaudeNova", "comment) there" },
        "a word stays whole"
      )
      t:eq(
        text().wrap("abcdefghijklmnopqrstuvwxyz", 10),
        { "abcdefghij", "klmnopqrst", "uvwxyz" },
        "a word wider than the line is cut"
      )
      t:eq(text().wrap("a b", 20, "  "), { "a b" }, "short")
      t:eq(text().wrap("one two three four", 9, "  "), { "one two", "  three", "  four" }, "indent after the first")
      t:eq(text().wrap("", 9), { "" }, "empty")
    end,
  },
}
