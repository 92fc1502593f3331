package approval

import (
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Where a decision comes from: the request's own surface (a panel, a
// proposal, a form), a key on its sidebar row, a command or the Lua API, or
// a batch over several rows. (The plugin itself allows without a person
// only what MayAutoAllow lets it.)
const (
	ViaSurface = "surface"
	ViaSidebar = "sidebar"
	ViaCommand = "command"
	ViaBatch   = "batch"
)

// Hints say how a request may be answered, as the CLI asks in its
// can_use_tool hints (see SDKControlPermissionRequest in the SDK's
// sdk.d.ts). The plugin obeys them wherever a request can be answered.
type Hints struct {
	// NoRules: no lasting rule and no session-wide allow
	// (suppress_always_allow_rule; and requires_user_interaction, which no
	// stored grant may answer).
	NoRules bool `json:"no_rules"`
	// Deliberate: not approvable by a single keystroke (default_to_no,
	// requires_user_interaction): the panel opens on Deny.
	Deliberate bool `json:"deliberate"`
	// HumanOnly: never answered by a batch or by the plugin itself
	// (classifier_approvable false: a safety check needs a person;
	// matched_ask_rule: the user's own ask rule; requires_user_interaction).
	HumanOnly bool `json:"human_only"`
	// Why is the CLI's reason for the above, in words ("" when none).
	Why string `json:"why,omitempty"`
}

// HintsOf reads the hints of a request.
func HintsOf(pr claude.PermissionRequest) Hints {
	var h Hints
	var why []string
	if pr.ClassifierApprovable != nil && !*pr.ClassifierApprovable {
		h.HumanOnly = true
		why = append(why, "a safety check only you can approve")
	} else if pr.DecisionReasonType == "safetyCheck" {
		why = append(why, "a safety check")
	}
	if r := pr.MatchedAskRule; r != nil {
		h.HumanOnly = true
		src := ""
		if r.Source != "" {
			src = " in " + r.Source
		}
		why = append(why, "your ask rule "+r.String()+src)
	}
	if pr.SuppressAlwaysAllowRule {
		h.NoRules = true
		if len(why) == 0 {
			why = append(why, "claude offers no lasting rule for it")
		}
	}
	if pr.DefaultToNo {
		h.Deliberate = true
		why = append(why, "claude asks for a deliberate answer")
	}
	if pr.RequiresUserInteraction {
		h.NoRules, h.Deliberate, h.HumanOnly = true, true, true
		if pr.DecisionReasonType == "classifier" {
			why = append(why, "claude's classifier handed it to you")
		} else {
			why = append(why, "claude asks that you answer it yourself")
		}
	}
	h.Why = sanitize.Line(strings.Join(why, "; "))
	return h
}

// MayAutoAllow reports whether the plugin may allow a request by itself,
// with no person answering (the editor's own read-only tools, a rewrite of
// content the user approved already): never when claude asks for a
// person's answer (HumanOnly, Deliberate).
func MayAutoAllow(pr claude.PermissionRequest) bool {
	h := HintsOf(pr)
	return !h.HumanOnly && !h.Deliberate
}

// allows reports whether a behavior allows the request.
func allows(behavior string) bool {
	return behavior == Allow || behavior == AllowSession || behavior == AllowTool || behavior == AllowDir
}

// Refusal says why a decision may not answer request r coming from via ("" when it
// may): its kind says. Nothing is answered and the request stays pending when it is not.
func Refusal(r Pending, d Decision, via string) string { return r.Kind.Refusal(r, d, via) }

// AskRefusal is Refusal for a request claude asks, by its hints.
func AskRefusal(r Pending, d Decision, via string) string {
	h := HintsOf(r.Perm)
	because := ""
	if h.Why != "" {
		because = " (" + h.Why + ")"
	}
	switch {
	case len(d.Rules) > 0 && h.NoRules:
		return "claude asks that no lasting rule be made for this request" + because + ": allow or deny it once"
	case (d.Behavior == AllowSession || d.Behavior == AllowTool || d.Behavior == AllowDir) && h.NoRules:
		return "claude asks that this request not be allowed for the session" + because + ": allow or deny it once"
	case via == ViaBatch && allows(d.Behavior) && (h.HumanOnly || h.Deliberate):
		return "it needs your own answer" + because
	case via == ViaSidebar && allows(d.Behavior) && h.Deliberate:
		return "claude asks that this not be approved by a single key" + because + ": its panel opens on Deny"
	case d.Behavior == AllowDir && len(rules.SuggestedDirs(r.Perm.Suggestions)) == 0:
		return "claude suggested no folder to allow for this request: allow it once or for the session"
	case d.Behavior == AllowSession:
		if _, ok := rules.SessionChoice(r.Perm.ToolName, r.Perm.In.Fields, r.Perm.Suggestions); !ok {
			return "claude suggested no rule for this request, so there is nothing to allow for the session: allow it once, or make a rule with Always…"
		}
	}
	return ""
}

// OutsideNoRule is why "Always…" is not offered for a read outside the
// session's folders.
const OutsideNoRule = "a read outside the session's folders is allowed once or for this session here; " +
	"to allow it for good, add a Read rule (Read(~/notes/**)) to your settings"

// OutsideRefusal says why a decision may not answer an editor tool's read
// outside the session's folders: no lasting rule, and never allowed by a
// batch (only the user lets text leave; the plugin never allows one by
// itself).
func OutsideRefusal(d Decision, via string) string {
	switch {
	case len(d.Rules) > 0:
		return OutsideNoRule
	case via == ViaBatch && allows(d.Behavior):
		return "it needs your own answer (a read outside the session's folders)"
	}
	return ""
}
