package sandbox

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"pixdash/api"
)

// maxProjectDescription bounds a project's description (the service's bound is not documented).
const maxProjectDescription = 255

// projectCreated is the 201 body of POST /projects (no updatedAt, as the service answers).
type projectCreated struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	CreatedAt   string  `json:"createdAt"`
	Description string  `json:"description,omitempty"`
	LogoURL     *string `json:"logoUrl"` // null without a logo, as the service writes it
}

// handleCreateProject serves POST /projects: name (required, at most 255, unique in the account
// without regard to case: 409), color (required hex), description and logoUrl optional.
func (s *Server) handleCreateProject(c *call) {
	body, ok := c.readBody()
	if !ok {
		return
	}
	var raw struct {
		Name        *string `json:"name"`
		Color       *string `json:"color"`
		Description *string `json:"description"`
		LogoURL     *string `json:"logoUrl"`
	}
	if !c.decodeObject(body, &raw) {
		return
	}
	var req api.CreateProjectRequest
	for _, f := range []struct {
		dst *string
		src *string
	}{{&req.Name, raw.Name}, {&req.Color, raw.Color}, {&req.Description, raw.Description}, {&req.LogoURL, raw.LogoURL}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	ps := api.CheckCreateProject(&req)
	if utf8.RuneCountInString(req.Description) > maxProjectDescription {
		ps = append(ps, api.FieldProblem{Field: "description", Msg: "description must be shorter than or equal to 255 characters"})
	}
	if len(ps) > 0 {
		c.validation(ps)
		return
	}
	name := strings.TrimSpace(req.Name)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := c.acct
	for _, p := range a.projects {
		if strings.EqualFold(p.name, name) {
			c.fail(http.StatusConflict, api.KindConflict, "A project named '"+p.name+"' already exists",
				map[string]any{"resource": resProject, "field": "name", "value": name})
			return
		}
	}
	now := s.clock.Now()
	p := &project{id: s.ids.uuid(), name: name, color: req.Color, description: req.Description, logoURL: req.LogoURL,
		createdAt: now, updatedAt: now}
	a.projects = append(a.projects, p)
	c.json(http.StatusCreated, projectCreated{ID: p.id, Name: p.name, Color: p.color, CreatedAt: now.UTC().Format(timeLayout),
		Description: p.description, LogoURL: optString(p.logoURL)})
}

// handleGetProject serves GET /projects/{id}: the project with updatedAt, or 404 (resource Project).
func (s *Server) handleGetProject(c *call) {
	id := c.params[0]
	s.mu.Lock()
	p := c.acct.project(id)
	var body projectBody
	if p != nil {
		body = p.body()
	}
	s.mu.Unlock()
	if p == nil {
		c.notFound(resProject, id)
		return
	}
	c.json(http.StatusOK, body)
}

// project finds one of the account's projects by id (case-insensitively); nil when unknown.
// s.mu is held.
func (a *account) project(id string) *project {
	for _, p := range a.projects {
		if strings.EqualFold(p.id, id) {
			return p
		}
	}
	return nil
}

// projectOf resolves a request's projectId among the account's projects: "" stays "", an
// unknown id is answered 404 (resource Project) and reports false. s.mu is held.
func (c *call) projectOf(a *account, id string) (string, bool) {
	if id == "" {
		return "", true
	}
	p := a.project(id)
	if p == nil {
		c.notFound(resProject, id)
		return "", false
	}
	return p.id, true
}
