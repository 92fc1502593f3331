-- The front end's layers, lowest first. A module requires only modules of
-- its own layer or below, and the requires never go round in a circle
-- (checked by layers_spec.lua, which reads every require of every module).
-- The README's "Hacking" section and lua/claudenova/init.lua describe them.
return {
  { name = "base", "claudenova.version", "claudenova.hlgroups", "claudenova.errors", "claudenova.ui.text",
    "claudenova.ui.picker", "claudenova.paths", "claudenova.release" },
  { name = "config", "claudenova.config", "claudenova.ui.notify", "claudenova.ui.labels", "claudenova.highlights",
    "claudenova.away", "claudenova.images", "claudenova.install", "claudenova.register" },
  { name = "channel", "claudenova.host" },
  { name = "store", "claudenova.ui.state", "claudenova.ui.actions" },
  { name = "services", "claudenova.context", "claudenova.keys", "claudenova.ui.scheduler", "claudenova.ui.disk",
    "claudenova.ui.rescue", "claudenova.ui.header", "claudenova.tools", "claudenova.ui.world" },
  { name = "surfaces", "claudenova.ui.panel", "claudenova.ui.proposal", "claudenova.ui.hunks", "claudenova.ui.plan",
    "claudenova.ui.question", "claudenova.ui.elicit", "claudenova.ui.always", "claudenova.ui.sidebar",
    "claudenova.ui.transcript", "claudenova.ui.prompt", "claudenova.ui.complete", "claudenova.ui.tasks",
    "claudenova.ui.rules", "claudenova.ui.changes", "claudenova.ui.usage", "claudenova.ui.rewind",
    "claudenova.ui.pickers", "claudenova.ui.target", "claudenova.ui.mcp", "claudenova.ui.comments",
    "claudenova.ui.blame", "claudenova.ui.round" },
  { name = "front end", "claudenova.ui.inbox", "claudenova.ui.gestures", "claudenova.ui.ops", "claudenova.ui" },
  { name = "API", "claudenova", "claudenova.commands", "claudenova.health" },
}
