-- The version of the Lua side; the host binary must report the same.
return "0.1.0"
