// Seat numbers change base here, and only here. The JSON API numbers seats as people do,
// 1..n, with 0 for no seat (a spectator, or no one to move once the game is over); the
// page's lists (a View's players, names, kinds, scores; the seats' letters and colours)
// are indexed from 0. Every conversion between the two goes through this pair
// (tests/test_seat_numbers.py looks for any other; docs/web.md, "Seat numbers").

// The index in a per-seat list of the API's seat number `seat` (1..n).
export const seatIndex = (seat) => seat - 1;

// The API's seat number (1..n) of the per-seat list index `index`.
export const seatNumber = (index) => index + 1;
