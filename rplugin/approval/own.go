package approval

import "fmt"

// ownSurface lists the surfaces whose requests only they answer: a gesture
// from elsewhere (a sidebar key, a command, a batch) opens the surface
// instead. The front end reads this from the view (the request view's Own).
var ownSurface = map[Surface]bool{SurfacePlan: true, SurfaceQuestion: true, SurfaceElicit: true}

// OwnSurface reports whether only surface s answers its requests.
func OwnSurface(s Surface) bool { return ownSurface[s] }

// OwnRefusal is what a gesture from elsewhere than its surface is told of a
// request only its surface answers (the surface is presented).
func OwnRefusal(s Surface) string {
	return fmt.Sprintf("a %s needs its own answer: its surface is open", surfaceName(s))
}

// OwnNoRule is why "Always…" is not offered for such a request.
func OwnNoRule(s Surface) string {
	return fmt.Sprintf("a %s needs its own answer, not a rule", surfaceName(s))
}

func surfaceName(s Surface) string {
	if s == SurfaceElicit {
		return "form"
	}
	return string(s)
}
