-- The gestures the surfaces ask for, as slots: a surface (the panel, the
-- sidebar, the prompt input…) calls actions.decide(…), actions.send(…);
-- the front end (claudenova.frontend) fills the slots with its gesture API and
-- its session operations when it loads. So a surface never requires a
-- module above it, and there is one gesture API whoever asks.
local M = {}

return setmetatable(M, {
  __index = function(_, name)
    error(("claude-nova: internal error: the front end is not loaded (action %s)"):format(tostring(name)), 2)
  end,
})
