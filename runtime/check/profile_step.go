package check

import "strings"

// ProfileItemPrefix starts the id of a profile's item: profile-claude-code.
const ProfileItemPrefix = "profile-"

// profileSteps judges what the server offered against each client profile
// asked for (Options.Profiles): one item each, after every other. The tools
// are the ones listed last (after the reconnect, when it worked: a server
// that registers tools late has them by then).
func (c *checker) profileSteps() {
	tools := c.tools
	if c.toolsAfter != nil {
		tools = c.toolsAfter
	}
	offer := Offer{Server: c.name, Tools: tools, Instructions: c.instructions}
	for _, p := range c.opts.Profiles {
		c.step(ProfileItemPrefix+p.Name, func() (Status, string) {
			if skip := c.prerequisite(); skip != "" {
				return Skip, skip
			}
			r := p.Judge(offer)
			c.report.Profiles = append(c.report.Profiles, r)
			return r.Status, r.Summary()
		})
	}
}

// profileName is the human name of a profile item's id.
func profileName(id string) (string, bool) {
	name, ok := strings.CutPrefix(id, ProfileItemPrefix)
	if !ok {
		return "", false
	}
	if p, ok := ProfileNamed(name); ok {
		return "Client profile: " + p.Client, true
	}
	return "", false
}
