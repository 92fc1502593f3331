package approval

// outcomes are the words for what a decision did, as the transcript, the
// log and the front end's messages say them (lua/claudenova/frontend/gestures.lua
// has the same list; a test checks they agree). Read through Outcome.
var outcomes = map[string]string{
	Allow:        "allowed",
	AllowSession: "allowed for the session",
	AllowTool:    "allowed for the session (the whole tool)",
	AllowDir:     "allowed with its folder for the session",
	Deny:         "denied",
}

// Outcome is the word for behavior (the behavior itself when unknown).
func Outcome(behavior string) string {
	if w, ok := outcomes[behavior]; ok {
		return w
	}
	return behavior
}
