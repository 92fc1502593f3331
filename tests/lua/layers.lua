-- The front end's layers, lowest first: each is a folder of lua/claudenova/
-- (the API is the top folder itself). A module requires only modules of its
-- own layer or below, and the requires never go round in a circle (checked by
-- layers_spec.lua, which reads the folders and every require of every
-- module). The README's "Hacking" section and lua/claudenova/init.lua
-- describe them.
return {
  { name = "core", folder = "core" }, -- text, errors, paths, version, render, pickers' base
  { name = "setup", folder = "setup" }, -- options, messages, labels, highlights, install
  { name = "channel", folder = "channel" }, -- the host: calls and its one ordered stream
  { name = "store", folder = "store" }, -- what the host told us; gesture slots
  { name = "services", folder = "services" }, -- calls, scheduler, context, keys, disk, world, tools
  { name = "surfaces", folder = "surfaces" }, -- one file per surface
  { name = "frontend", folder = "frontend" }, -- applies the stream, gestures (the door for answers), ops
  { name = "API", folder = "" }, -- claudenova, commands, health
}
