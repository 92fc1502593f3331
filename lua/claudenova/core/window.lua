-- The claude versions claude-nova supports: the oldest it works with and the
-- newest it was tested with (the host's rplugin/window/window.go says the
-- same; a test checks they agree). :checkhealth claudenova and the first
-- session of a claude outside the window say so.
return { oldest = "2.1.263", newest = "2.1.332" }
