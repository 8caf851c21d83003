package client

import (
	"context"
	"net/http"
	"strconv"
)

// SurveysService covers /surveys/*.
type SurveysService struct{ c *Client }

// SurveyEntry is one survey of the list.
type SurveyEntry struct {
	SurveyID int    `json:"surveyId"`
	Title    string `json:"title"`
}

// Survey is a survey with the user's answers.
type Survey struct {
	ID    int          `json:"id"`
	Title string       `json:"title"`
	Items []SurveyItem `json:"items"`
}

// SurveyItem is one choice of a survey. Weight is the interest strength,
// 0 to 1 (DECISIONS §8).
type SurveyItem struct {
	ID       int     `json:"id"`
	Text     string  `json:"texto"`
	Image    string  `json:"imagen"`
	Selected bool    `json:"selected"`
	Weight   float64 `json:"weight"`
}

// List returns the surveys.
func (s *SurveysService) List(ctx context.Context) ([]SurveyEntry, error) {
	var out []SurveyEntry
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, path: "/surveys/", auth: authToken}, &out)
	return out, err
}

// Get returns one survey with the user's selection.
func (s *SurveysService) Get(ctx context.Context, id int) (Survey, error) {
	var out Survey
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, path: "/surveys/" + strconv.Itoa(id), auth: authToken}, &out)
	return out, err
}

// Save replaces the user's selection and returns the updated survey.
func (s *SurveysService) Save(ctx context.Context, id int, selected []int) (Survey, error) {
	if selected == nil {
		selected = []int{}
	}
	body, n, err := jsonBody(map[string][]int{"selected_items": selected})
	if err != nil {
		return Survey{}, err
	}
	var out Survey
	err = s.c.doJSON(ctx, &request{method: http.MethodPost, path: "/surveys/" + strconv.Itoa(id), auth: authToken,
		body: body, length: n, contentType: "application/json"}, &out)
	return out, err
}
