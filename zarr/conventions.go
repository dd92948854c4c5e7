package zarr

// Zarr conventions (github.com/zarr-conventions/zarr-conventions-spec): a
// node's attributes declare, in "zarr_conventions", which conventions give
// other attributes their meaning. They never change how data is stored, so
// the engine only lists them; entries that do not follow the specification
// are left out, never an error.

// Convention is one entry of a node's "zarr_conventions" attribute.
type Convention struct {
	UUID        string `json:"uuid,omitempty"`
	SchemaURL   string `json:"schema_url,omitempty"`
	SpecURL     string `json:"spec_url,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// ID is what identifies the convention: its uuid, else its schema_url, else
// its spec_url (the specification's order of precedence).
func (c Convention) ID() string {
	switch {
	case c.UUID != "":
		return c.UUID
	case c.SchemaURL != "":
		return c.SchemaURL
	}
	return c.SpecURL
}

// ParseConventions returns the conventions attrs declares, in order: the
// entries of "zarr_conventions" that are objects with at least one of
// uuid, schema_url and spec_url, each member a string (other entries, and
// members the specification does not define, are ignored).
func ParseConventions(attrs map[string]any) []Convention {
	list, _ := attrs["zarr_conventions"].([]any)
	var out []Convention
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		var c Convention
		valid := true
		for key, field := range map[string]*string{"uuid": &c.UUID, "schema_url": &c.SchemaURL, "spec_url": &c.SpecURL,
			"name": &c.Name, "description": &c.Description} {
			v, present := m[key]
			if !present {
				continue
			}
			s, isString := v.(string)
			valid = valid && isString
			*field = s
		}
		if valid && c.ID() != "" {
			out = append(out, c)
		}
	}
	return out
}

// Conventions lists the conventions the array's attributes declare.
func (a *Array) Conventions() []Convention { return ParseConventions(a.attrs) }

// Conventions lists the conventions the group's attributes declare.
func (g *Group) Conventions() []Convention { return ParseConventions(g.attrs) }
