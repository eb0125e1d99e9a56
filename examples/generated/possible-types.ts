
      export type PossibleTypesResultData = {
  "possibleTypes": {
    "Node": [
      "Comment",
      "Notification",
      "Post",
      "User"
    ]
  }
};
      const result: PossibleTypesResultData = {
  "possibleTypes": {
    "Node": [
      "Comment",
      "Notification",
      "Post",
      "User"
    ]
  }
};
      export default result;
    