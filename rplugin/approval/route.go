// Package approval holds the pending permission requests of every session
// (the registry), decides which surface presents each one (routing), and turns
// the user's decision into the answer claude receives.
package approval

import (
	"errors"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
)

// Surface is the UI that presents a request.
type Surface string

// The surfaces a request can be routed to.
const (
	SurfacePanel    Surface = "panel"    // Allow / Allow for Session / Review / Deny
	SurfaceProposal Surface = "proposal" // editable staged file
	SurfaceQuestion Surface = "question" // AskUserQuestion
	SurfacePlan     Surface = "plan"     // ExitPlanMode
	SurfaceDeny     Surface = "deny"     // answered at once: we have no UI for it
	SurfaceElicit   Surface = "elicit"   // an MCP server's form (elicitation)
)

// ReviewEdits says how file changes are reviewed ("proposal" or "panel").
type ReviewEdits string

// Review modes.
const (
	ReviewProposal ReviewEdits = "proposal"
	ReviewPanel    ReviewEdits = "panel"
)

// Route is where a request goes, and why when it is not the obvious place.
type Route struct {
	Surface Surface
	Reason  string
}

// IsFileChange reports whether tool changes a file in a way we can
// reconstruct; the proposal package, which reconstructs them, owns the list.
func IsFileChange(tool string) bool { return proposal.IsFileChange(tool) }

// RouteOf routes a request to its surface (the cases below, in order). stage, when
// given, is called only for file changes under ReviewProposal; an error from
// it sends the request to the panel with the error as the reason. (To
// present a request is to open the surface it was routed to: see
// Registry.Present.)
func RouteOf(pr claude.PermissionRequest, review ReviewEdits, stage func() error) Route {
	switch {
	case pr.ToolName == "AskUserQuestion":
		return Route{Surface: SurfaceQuestion}
	case pr.ToolName == "ExitPlanMode":
		return Route{Surface: SurfacePlan}
	case IsFileChange(pr.ToolName):
		if review == ReviewPanel {
			return Route{Surface: SurfacePanel}
		}
		if stage != nil {
			if err := stage(); err != nil {
				var tp *ToPanel
				if errors.As(err, &tp) {
					return Route{Surface: SurfacePanel, Reason: tp.Reason}
				}
				return Route{Surface: SurfacePanel, Reason: "cannot stage a proposal: " + err.Error()}
			}
		}
		return Route{Surface: SurfaceProposal}
	case pr.RequiresUserInteraction && !rules.Known(pr.ToolName):
		// A tool whose approval card is its own interactive UI, which this
		// client does not have. For the tools it knows, the flag means the
		// ask must be answered by a person, deliberately (see Hints): the
		// panel does that.
		return Route{Surface: SurfaceDeny, Reason: NeedsOwnUIMessage(pr.ToolName)}
	default:
		return Route{Surface: SurfacePanel}
	}
}

// ToPanel, returned by the stage function of RouteOf, sends a file change
// to the panel with Reason as it is: a change that is better reviewed there
// (a notebook cell deletion), not one that failed to stage.
type ToPanel struct{ Reason string }

func (e *ToPanel) Error() string { return e.Reason }

// NeedsOwnUIMessage is the deny message for an interactive tool we cannot show.
func NeedsOwnUIMessage(tool string) string {
	return "The tool " + tool + " needs its own interactive UI, which this client (claude-nova.nvim) does not have. " +
		"Do not call " + tool + " again; ask the user in plain text instead."
}
