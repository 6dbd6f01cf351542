/** Lane 5 of `npm test` (lanes.ts). */
import { runLane } from './lanes.ts';

runLane(5);
